/**
 * Bench 2: gpt-tokenizer throughput on 2 MB of mixed prose and code — `countTokens` next to
 * `encode().length` — and the lazy load of the o200k_base ranks in a fresh process.
 *
 *     npx tsx test/bench/token-counting.bench.ts
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createSection, emitSection } from './lib/report';
import { summarizeSamples, timeRepeatedly } from './lib/stats';
import { createMixedText } from './lib/synthetic-text';

const TEXT_BYTES = 2 * 1024 * 1024;
const FRESH_PROCESS_RUNS = 5;
const NO_DISALLOWED_SPECIAL = new Set<string>();

const run = promisify(execFile);

/** Time of `await import('gpt-tokenizer/encoding/o200k_base')` in a new Node process. */
async function timeFreshImport(): Promise<number> {
  const script =
    "const start = performance.now(); await import('gpt-tokenizer/encoding/o200k_base'); " +
    'console.log(performance.now() - start);';
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: process.cwd(),
  });
  return Number(stdout.trim());
}

async function main(): Promise<void> {
  const section = createSection('token-counting', '2. Token counting (gpt-tokenizer, o200k_base)');
  const loads: number[] = [];
  for (let index = 0; index < FRESH_PROCESS_RUNS; index++) loads.push(await timeFreshImport());
  const { countTokens, encode } = await import('gpt-tokenizer/encoding/o200k_base');
  const text = createMixedText(2026, TEXT_BYTES);
  const megabytes = new TextEncoder().encode(text).length / (1024 * 1024);
  const options = { disallowedSpecial: NO_DISALLOWED_SPECIAL };
  const tokens = countTokens(text, options);
  if (tokens !== encode(text, options).length)
    throw new Error('countTokens and encode().length disagree');

  const timingOptions = { warmups: 1, minRuns: 5, maxRuns: 10, budgetMs: 8_000 };
  const counting = await timeRepeatedly(() => countTokens(text, options), timingOptions);
  const encoding = await timeRepeatedly(() => encode(text, options).length, timingOptions);
  const toThroughput = (spread: typeof counting) => ({
    ...spread,
    // Throughput inverts the order: the slowest run gives the lowest MB/s.
    median: megabytes / (spread.median / 1000),
    p5: megabytes / (spread.p95 / 1000),
    p95: megabytes / (spread.p5 / 1000),
    min: megabytes / (spread.max / 1000),
    max: megabytes / (spread.min / 1000),
  });
  section.figures.push({
    name: `countTokens on ${megabytes.toFixed(1)} MB mixed prose and code`,
    unit: 'MB/s',
    spread: toThroughput(counting),
    baseline: { name: 'encode().length', unit: 'MB/s', spread: toThroughput(encoding) },
    ratioLabel: '× of encode().length',
  });
  section.figures.push({
    name: 'lazy load of o200k_base (dynamic import, fresh process)',
    unit: 'ms',
    spread: summarizeSamples(loads),
  });
  section.values.push({ name: 'tokens in the text', value: tokens, unit: 'tokens' });
  section.values.push({
    name: 'characters per token',
    value: Number((text.length / tokens).toFixed(2)),
    unit: 'chars',
  });
  await emitSection(section);
}

await main();
