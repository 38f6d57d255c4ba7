/**
 * Bench 3b: Carrel's retrieval against MiniSearch and Orama (test/bench/lib/retrieval-peers.ts
 * says how each is set up): the same chunks and top-10 queries as bench 3, hybrid, keyword and
 * vector, in Node and in Chromium; index build time and, in Node, the memory the index adds.
 * Every engine is built three times; the query figures pool the three runs' queries.
 *
 *     npx tsx test/bench/retrieval-peers.bench.ts
 */
import { cpus, loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { openBenchPage, startBrowserBench } from './lib/bench-browser';
import { createSection, emitSection, type BenchSection, type Figure } from './lib/report';
import {
  measurePeers,
  type EngineFigures,
  type PeerFigures,
  type SearchMode,
} from './lib/retrieval-peers';
import { createCorpus } from './lib/retrieval-workload';
import { summarizeSamples } from './lib/stats';

const RUNS = 3;
const SIZES: ReadonlyArray<{ size: number; queries: number }> = [
  { size: 10_000, queries: 30 },
  { size: 100_000, queries: 10 },
];
const MIB = 1024 * 1024;

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function measureMemory(): number {
  collectGarbage();
  collectGarbage();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

const MODE_NAMES: Record<SearchMode, string> = {
  hybrid: 'hybrid top-10',
  keyword: 'BM25 / full text top-10',
  vector: 'vector top-10',
};

function engineOf(figures: PeerFigures, label: string): EngineFigures {
  const found = figures.engines.find((engine) => engine.label === label);
  if (found === undefined) throw new Error(`No figures for ${label}`);
  return found;
}

function addPeerFigures(section: BenchSection, where: string, figures: PeerFigures): void {
  const at = `${where}, ${figures.size.toLocaleString('en-US')} chunks`;
  const carrel = engineOf(figures, 'Carrel');
  const carrelKeywords = engineOf(figures, 'Carrel BM25');
  const minisearch = engineOf(figures, 'MiniSearch');
  const orama = engineOf(figures, 'Orama');
  const queryFigure = (engine: EngineFigures, mode: SearchMode) => ({
    name: `${engine.label} ${MODE_NAMES[mode]}`,
    unit: 'ms',
    spread: summarizeSamples(engine.queryMs[mode] ?? []),
  });
  const compare = (
    figure: { name: string; unit: string; spread: Figure['spread'] },
    baseline: { name: string; unit: string; spread: Figure['spread'] },
  ): Figure => ({
    ...figure,
    name: `${at}: ${figure.name}`,
    baseline,
    ratioLabel: `× (${baseline.name.split(' ')[0] ?? ''} / Carrel)`,
  });
  const alone = (figure: { name: string; unit: string; spread: Figure['spread'] }): Figure => ({
    ...figure,
    name: `${at}: ${figure.name}`,
  });

  for (const [mode, peers] of [
    ['hybrid', [orama]],
    ['keyword', [minisearch, orama]],
    ['vector', [orama]],
  ] as const) {
    for (const peer of peers) section.figures.push(alone(queryFigure(peer, mode)));
    for (const peer of peers)
      section.figures.push(compare(queryFigure(carrel, mode), queryFigure(peer, mode)));
  }
  const build = (engine: EngineFigures, what: string) => ({
    name: `${engine.label} ${what} build`,
    unit: 'ms',
    spread: summarizeSamples(engine.buildMs),
  });
  section.figures.push(compare(build(carrel, 'hybrid index'), build(orama, 'index')));
  section.figures.push(compare(build(carrelKeywords, 'index'), build(minisearch, 'index')));
  const memory = (engine: EngineFigures, what: string) =>
    engine.memoryBytes === null
      ? null
      : {
          name: `${engine.label} ${what} memory`,
          unit: 'MiB',
          spread: summarizeSamples(engine.memoryBytes.map((bytes) => bytes / MIB)),
        };
  for (const [ours, theirs] of [
    [memory(carrel, 'hybrid index'), memory(orama, 'index')],
    [memory(carrelKeywords, 'index'), memory(minisearch, 'index')],
  ] as const) {
    if (ours !== null && theirs !== null) section.figures.push(compare(ours, theirs));
  }
  const runMedians = (engine: EngineFigures, mode: SearchMode) =>
    `${engine.label} ${mode} ${(engine.runMedianMs[mode] ?? []).map((value) => value.toFixed(2)).join(' / ')}`;
  section.values.push({
    name: `${at}: median per run (ms)`,
    value: [
      runMedians(carrel, 'hybrid'),
      runMedians(orama, 'hybrid'),
      runMedians(carrel, 'keyword'),
      runMedians(minisearch, 'keyword'),
      runMedians(orama, 'keyword'),
      runMedians(carrel, 'vector'),
      runMedians(orama, 'vector'),
    ].join('; '),
    unit: '',
  });
  section.values.push({
    name: `${at}: share of MiniSearch's keyword top-10 that Carrel's returns`,
    value: Number(figures.keywordAgreement.toFixed(3)),
    unit: '',
  });
}

/** Node, or with `--chromium` the bench page in Chromium: two sections, each its own process. */
const isChromium = process.argv.includes('--chromium');
const progress = (message: string): void => console.error(`[retrieval-peers] ${message}`);

async function measureInNode(section: BenchSection): Promise<void> {
  for (const { size, queries: queryCount } of SIZES) {
    const { chunks, queries } = createCorpus(size, queryCount);
    const figures = await measurePeers(chunks, queries, {
      runs: RUNS,
      queryCount,
      measureMemory,
      onProgress: progress,
    });
    addPeerFigures(section, 'Node', figures);
  }
}

async function measureInChromium(section: BenchSection): Promise<void> {
  const bench = await startBrowserBench({ retrieval: 'test/bench/pages/retrieval.page.ts' });
  try {
    const page = await openBenchPage(bench.browser, 'retrieval');
    for (const { size, queries } of SIZES) {
      const figures = await page.evaluate(
        ([size, queries, runs]) =>
          (
            globalThis as unknown as {
              runRetrievalPeers: (size: number, queries: number, runs: number) => PeerFigures;
            }
          ).runRetrievalPeers(size, queries, runs),
        [size, queries, RUNS] as const,
      );
      addPeerFigures(section, 'Chromium', figures);
      progress(`${size} chunks done`);
    }
  } finally {
    await bench.close();
  }
}

async function main(): Promise<void> {
  const loadAtStart = loadavg()[0] ?? 0;
  const section = isChromium
    ? createSection(
        'retrieval-peers-chromium',
        '3b. Retrieval against MiniSearch and Orama in Chromium (top-10, 384 dimensions)',
      )
    : createSection(
        'retrieval-peers',
        '3b. Retrieval against MiniSearch and Orama in Node (top-10, 384 dimensions)',
      );
  if (isChromium) await measureInChromium(section);
  else await measureInNode(section);
  section.notes.push(
    'Same corpus and queries as bench 3 (40-word Zipf chunks, 384-d vectors around 256 topics; queries of 4 words plus a vector). Each engine is built 3 times, one at a time; in each run 3 untimed queries, then the timed ones; a query figure pools the 3 runs (median and p5–p95 of every query), and "median per run" gives each run its own median. Ratio = peer / Carrel: above 1, Carrel is faster or smaller.',
    "MiniSearch 7: Carrel's tokeniser and stop words, fields text and title (title ×1.5), OR, prefix for terms of 4+ letters, fuzzy 0.15 for 6+ — the settings Carrel's keyword index reproduces (the share of MiniSearch's top-10 it returns is listed; ties in score may order differently). Results are `search(query).slice(0, 10)`, as an app would use it.",
    "Orama 3: its English tokeniser without stemming, Carrel's stop words, title ×1.5, default prefix matching, no typo tolerance (Carrel does fuzzy matching on top, so Orama's full text does less work); vectors ranked with `similarity: -1` so every row counts as in Carrel (Orama's default 0.8 leaves most rows of a real model out); hybrid with Orama's own weighting of its min-max normalised BM25 and cosine. Carrel's hybrid is its project search: BM25 and cosine, 50 candidates each, fused by reciprocal rank, at most 3 chunks per file.",
    "Build: Carrel's hybrid retriever (BM25 + float32 vector matrix in wasm memory) against Orama's index of text and vectors; Carrel's BM25 index alone against MiniSearch. Memory (Node only): heap plus external memory (wasm memory and array buffers) after the build less before, after garbage collection, with the chunks already in memory; Chromium gives pages no exact figure for this.",
    `Load average (1 min) at start and end of this run: ${loadAtStart.toFixed(1)} and ${(loadavg()[0] ?? 0).toFixed(1)} on ${cpus().length} cores.`,
  );
  await emitSection(section);
}

await main();
