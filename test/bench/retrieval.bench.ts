/**
 * Bench 3: hybrid top-10 (BM25 + cosine, fused) over 10k and 100k chunks of 384 dimensions with
 * the project's retriever (src/core/rag), in Node and in Chromium; int8 rows against float32.
 *
 *     npx tsx test/bench/retrieval.bench.ts
 */
import { startBrowserBench, openBenchPage } from './lib/bench-browser';
import { createSection, emitSection, type BenchSection } from './lib/report';
import { measureRetrieval, type RetrievalFigures } from './lib/retrieval-workload';

const RUNS: ReadonlyArray<{ size: number; queries: number; targetMs: number; target: string }> = [
  { size: 10_000, queries: 30, targetMs: 10, target: '< 10 ms' },
  { size: 100_000, queries: 10, targetMs: 60, target: 'p50 < 60 ms' },
];

function addFigures(
  section: BenchSection,
  where: string,
  figures: RetrievalFigures,
  run: (typeof RUNS)[number],
): void {
  const size = figures.size.toLocaleString('en-US');
  section.figures.push({
    name: `${where}: hybrid top-10, ${size} chunks`,
    unit: 'ms',
    spread: figures.hybrid,
    target: run.target,
    isTargetMet: figures.hybrid.median < run.targetMs,
  });
  if (figures.keyword !== null) {
    section.figures.push({
      name: `${where}: BM25 alone (50 candidates), ${size} chunks`,
      unit: 'ms',
      spread: figures.keyword,
    });
  }
  section.figures.push({
    name: `${where}: int8 vector ranking, ${size} chunks`,
    unit: 'ms',
    spread: figures.vectorInt8,
    baseline: { name: 'float32 vector ranking', unit: 'ms', spread: figures.vectorFloat32 },
    ratioLabel: '× the speed of float32',
  });
  section.values.push({
    name: `${where}: int8 recall@10 against float32, ${size} chunks`,
    value: Number(figures.vectorRecallInt8.toFixed(3)),
    unit: '',
  });
  section.values.push({
    name: `${where}: index build (BM25 + vectors), ${size} chunks`,
    value: Math.round(figures.buildMs),
    unit: 'ms',
  });
}

async function main(): Promise<void> {
  const section = createSection('retrieval', '3. Retrieval (hybrid top-10, 384 dimensions)');
  const nodeFigures = RUNS.map((run) =>
    measureRetrieval(run.size, run.queries, run.size <= 10_000),
  );
  RUNS.forEach((run, index) =>
    addFigures(section, 'Node', nodeFigures[index] as RetrievalFigures, run),
  );
  const large = nodeFigures[nodeFigures.length - 1] as RetrievalFigures;
  const per100k = 100_000 / large.size;
  section.values.push({
    name: 'vector memory per 100k vectors, float32',
    value: Number(((large.float32Bytes * per100k) / 1024 / 1024).toFixed(1)),
    unit: 'MiB',
  });
  section.values.push({
    name: 'vector memory per 100k vectors, int8 (+ one float scale per row)',
    value: Number(((large.int8Bytes * per100k) / 1024 / 1024).toFixed(1)),
    unit: 'MiB',
  });

  const bench = await startBrowserBench({ retrieval: 'test/bench/pages/retrieval.page.ts' });
  try {
    const page = await openBenchPage(bench.browser, 'retrieval');
    for (const run of RUNS) {
      const figures = await page.evaluate(
        ([size, queries]) =>
          (
            globalThis as unknown as {
              runRetrieval: (size: number, queries: number) => RetrievalFigures;
            }
          ).runRetrieval(size, queries),
        [run.size, run.queries] as const,
      );
      addFigures(section, 'Chromium', figures, run);
    }
  } finally {
    await bench.close();
  }
  section.notes.push(
    'Chunks: 40 words each from a 20,000-word Zipf vocabulary, vectors scattered around 256 topic centres; queries: 4 words plus a vector near one centre. Memory is the size of the vector matrix the index keeps (the chunks hold their own Float32Array copies too).',
    'Where the time goes: MiniSearch BM25 with prefix and fuzzy expansion (OR over every term) and the vector scan, which allocates one {id, score} object per row and sorts all rows to take 50; a bounded top-k selection and a monomorphic Float32Array loop are the obvious fixes in src/core/rag/vector-index.ts.',
  );
  await emitSection(section);
}

await main();
