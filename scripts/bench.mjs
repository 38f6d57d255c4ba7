#!/usr/bin/env node
/**
 * `npm run bench`: runs every benchmark in test/bench (each in its own process, each with its
 * own time limit), then writes test/bench/results.json and the table in test/bench/RESULTS.md.
 * Benchmarks are never part of `npm test`. `npm run bench -- retrieval` runs only the named ones.
 * Opt-in benches (`optIn`, too long for every run) run only when named: `npm run bench -- generation`.
 */
import { spawn } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { describeFailure, mergeSections } from './bench-results.mjs';

/**
 * Each bench bounds its own work; these limits only stop a hung one (generous: on a shared,
 * loaded machine the chunking and backup benches take several times their quiet 3–6 minutes).
 * An opt-in bench runs only when named (`npm run bench -- generation`, `-- backup-1gb`): the
 * generation bench's first run also makes a 410 MB model. Its last section stays in the results
 * until it is run again.
 */
const BENCHES = [
  { id: 'context-assembly', file: 'test/bench/context-assembly.bench.ts', timeoutMs: 120_000 },
  { id: 'token-counting', file: 'test/bench/token-counting.bench.ts', timeoutMs: 90_000 },
  { id: 'retrieval', file: 'test/bench/retrieval.bench.ts', timeoutMs: 300_000 },
  // Each builds Orama and MiniSearch 3 times at 100k chunks: long on a loaded machine.
  { id: 'retrieval-peers', file: 'test/bench/retrieval-peers.bench.ts', timeoutMs: 3_600_000 },
  {
    id: 'retrieval-peers-chromium',
    file: 'test/bench/retrieval-peers.bench.ts',
    args: ['--chromium'],
    timeoutMs: 3_600_000,
  },
  { id: 'retrieval-quality', file: 'test/bench/retrieval-quality.bench.ts', timeoutMs: 120_000 },
  // Also writes 3,600 messages one by one for the change-tracking comparison.
  { id: 'storage', file: 'test/bench/storage.bench.ts', timeoutMs: 360_000 },
  { id: 'startup', file: 'test/bench/startup.bench.ts', timeoutMs: 150_000 },
  { id: 'streaming-ui', file: 'test/bench/streaming-ui.bench.ts', timeoutMs: 300_000 },
  { id: 'embeddings', file: 'test/bench/embeddings.bench.ts', timeoutMs: 540_000 },
  { id: 'chunking', file: 'test/bench/chunking.bench.ts', timeoutMs: 1_200_000 },
  // 3 runs each of 111 MB in four formats through the app: about 55 min for plain text,
  // Markdown and PDF on a 2-core machine at load 4-8, and the 100 MB of Word files are 3,580
  // files (each about 28 KB zipped), so the whole section needs more than 90 min there.
  { id: 'ingest', file: 'test/bench/ingest.bench.ts', timeoutMs: 10_800_000 },
  { id: 'backup', file: 'test/bench/backup.bench.ts', timeoutMs: 1_200_000 },
  { id: 'cold-open', file: 'test/bench/cold-open.bench.ts', timeoutMs: 1_800_000 },
  { id: 'project-open', file: 'test/bench/project-open.bench.ts', timeoutMs: 600_000 },
  {
    id: 'backup-1gb',
    file: 'test/bench/backup.bench.ts',
    args: ['--large'],
    optIn: true,
    // A whole run took 3,594 s at a load of 10–47 on 2 cores, right at an hour.
    timeoutMs: 7_200_000,
  },
  {
    id: 'generation',
    file: 'test/bench/generation.bench.ts',
    timeoutMs: 1_800_000,
    optIn: true,
  },
];

function describeMachine() {
  const cpuInfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const model = /model name\s*:\s*(.+)/.exec(cpuInfo)?.[1] ?? cpus()[0]?.model ?? 'unknown';
  return {
    cores: availableParallelism(),
    cpu: model.trim(),
    memoryGiB: Number((totalmem() / 1024 ** 3).toFixed(1)),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

function runBench(bench, outFile) {
  return new Promise((done) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', bench.file, ...(bench.args ?? [])], {
      env: { ...process.env, BENCH_OUT: outFile },
      stdio: ['ignore', 'inherit', 'inherit'],
      detached: true,
    });
    const timer = setTimeout(() => {
      // The bench's own group (its browser and servers too), and nothing else.
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, bench.timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, seconds: (Date.now() - started) / 1000 });
    });
  });
}

const isThroughput = (unit) => unit.endsWith('/s');

/** Baseline over figure for times, figure over baseline for rates: > 1 means the figure wins. */
function computeRatio(figure) {
  if (!figure.baseline) return null;
  const ratio = isThroughput(figure.unit)
    ? figure.spread.median / figure.baseline.spread.median
    : figure.baseline.spread.median / figure.spread.median;
  return Number(ratio.toFixed(2));
}

function format(value) {
  if (typeof value !== 'number') return String(value);
  if (!Number.isFinite(value)) return '–';
  // One decimal up to 1,000, so a figure just under its target (149.5 KB against < 150) does not
  // read as the target itself.
  const digits = Math.abs(value) >= 1000 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

const met = (flag) => (flag === undefined ? '' : flag ? 'yes' : '**no**');

function renderSection(section) {
  const lines = [`## ${section.title}`, ''];
  const failure = describeFailure(section);
  if (failure !== null) lines.push(`- ${failure}`, '');
  if (section.figures.length > 0) {
    lines.push(
      '| figure | median | p5 – p95 | runs | baseline / limit (same run) | baseline median | ratio | target | met |',
      '|---|---:|---:|---:|---|---:|---:|---|---|',
    );
    for (const figure of section.figures) {
      const { spread, baseline } = figure;
      const ratio = computeRatio(figure);
      lines.push(
        `| ${figure.name} | ${format(spread.median)} ${figure.unit} | ${format(spread.p5)} – ${format(spread.p95)} | ${spread.runs} | ${baseline?.name ?? ''} | ${baseline ? `${format(baseline.spread.median)} ${baseline.unit}` : ''} | ${ratio === null ? '' : `${format(ratio)}${figure.ratioLabel ?? '×'}`} | ${figure.target ?? ''} | ${met(figure.isTargetMet)} |`,
      );
    }
    lines.push('');
  }
  if (section.values.length > 0) {
    lines.push('| value | | target | met |', '|---|---:|---|---|');
    for (const value of section.values)
      lines.push(
        `| ${value.name} | ${format(value.value)} ${value.unit} | ${value.target ?? ''} | ${met(value.isTargetMet)} |`,
      );
    lines.push('');
  }
  for (const note of section.notes) lines.push(`- ${note}`);
  if (section.notes.length > 0) lines.push('');
  return lines.join('\n');
}

/** The table in RESULTS.md for the results in results.json, as the run that wrote them left them. */
function renderResults(results) {
  const { machine, command, sections } = results;
  const header = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (scripts/bench.mjs); do not edit by hand. Medians and spreads of repeated runs; each',
    'figure sits next to its baseline or limit measured in the same run. Ratio > 1 means the figure beats its baseline.',
    '',
    `- Date: ${results.date}`,
    `- Machine: ${machine.cores} cores (nproc), ${machine.cpu}, ${machine.memoryGiB} GiB memory, ${machine.platform}, Node ${machine.node}`,
    `- Load average (1 min) at the end: ${machine.loadAverage1m} — other work on the machine widens the spreads`,
    `- Command: \`${command}\``,
    `- Sections (when measured, how long the bench took): ${sections.map((section) => `${section.id} (${section.date ?? 'unknown'}, ${format(section.seconds ?? 0)} s)`).join(', ')}`,
    '',
  ].join('\n');
  return header + '\n' + sections.map(renderSection).join('\n');
}

async function main() {
  if (process.argv.includes('--render')) {
    // Rewrites RESULTS.md from results.json alone (after merging two branches' results).
    const results = JSON.parse(await readFile('test/bench/results.json', 'utf8'));
    await writeFile('test/bench/RESULTS.md', renderResults(results));
    console.log('Wrote test/bench/RESULTS.md from test/bench/results.json');
    return;
  }
  const only = process.argv.slice(2);
  const selected = BENCHES.filter((bench) =>
    only.length === 0 ? bench.optIn !== true : only.includes(bench.id),
  );
  const workDir = await mkdtemp(join(tmpdir(), 'carrel-bench-'));
  const startedAt = new Date();
  const sections = [];
  for (const bench of selected) {
    if (!existsSync(bench.file)) {
      sections.push({
        id: bench.id,
        title: bench.id,
        figures: [],
        values: [],
        notes: [`Not available: ${bench.file} does not exist.`],
      });
      continue;
    }
    console.log(`\n▶ ${bench.id}`);
    const outFile = join(workDir, `${bench.id}.json`);
    const outcome = await runBench(bench, outFile);
    if (outcome.code === 0 && existsSync(outFile)) {
      const section = JSON.parse(await readFile(outFile, 'utf8'));
      section.seconds = outcome.seconds;
      section.date = new Date().toISOString();
      for (const figure of section.figures) figure.ratio = computeRatio(figure);
      sections.push(section);
    } else {
      const why = outcome.signal
        ? `stopped after ${bench.timeoutMs / 1000} s (${outcome.signal})`
        : `exit code ${outcome.code}`;
      console.error(`✗ ${bench.id}: ${why}`);
      sections.push({
        id: bench.id,
        failure: { why, date: new Date().toISOString(), seconds: outcome.seconds },
      });
    }
  }
  await rm(workDir, { recursive: true, force: true });
  const machine = { ...describeMachine(), loadAverage1m: Number(loadavg()[0].toFixed(2)) };
  const command = `npm run bench${only.length > 0 ? ` -- ${only.join(' ')}` : ''}`;
  // A partial run (`npm run bench -- retrieval`) replaces its own sections and keeps the others
  // from the previous results, each with the date it was measured.
  const previous = existsSync('test/bench/results.json')
    ? JSON.parse(await readFile('test/bench/results.json', 'utf8'))
    : { sections: [] };
  const merged = mergeSections(
    BENCHES.map((bench) => bench.id),
    sections,
    previous.sections ?? [],
    previous.date,
  );
  const results = { date: startedAt.toISOString(), machine, command, sections: merged };
  await writeFile('test/bench/results.json', JSON.stringify(results, null, 2) + '\n');
  await writeFile('test/bench/RESULTS.md', renderResults(results));
  console.log('\nWrote test/bench/results.json and test/bench/RESULTS.md');
}

await main();
