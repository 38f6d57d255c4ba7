/**
 * Bench 3: hybrid top-10 (BM25 + cosine, fused) over 10k and 100k chunks of 384 dimensions with
 * the project's retriever (src/core/rag), in Node and in Chromium; the WebAssembly SIMD scan
 * against the JavaScript loop, int8 rows against float32.
 *
 *     npx tsx test/bench/retrieval.bench.ts
 */
import { cpus, loadavg } from 'node:os';
import { startBrowserBench, openBenchPage } from './lib/bench-browser';
import { createSection, emitSection, spreadOf, type BenchSection } from './lib/report';
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
  if (figures.fuzzyLookup !== null) {
    section.figures.push({
      name: `${where}: fuzzy term lookups per query (term dictionary), ${size} chunks`,
      unit: 'ms',
      spread: figures.fuzzyLookup.dictionary,
      baseline: {
        name: 'MiniSearch radix tree',
        unit: 'ms',
        spread: figures.fuzzyLookup.radixTree,
      },
      ratioLabel: '× the speed of the radix tree',
    });
  }
  section.figures.push({
    name: `${where}: float32 vector index build (${figures.scan}), ${size} chunks`,
    unit: 'ms',
    spread: spreadOf(figures.vectorBuild.simd),
    baseline: {
      name: 'JavaScript loop build',
      unit: 'ms',
      spread: spreadOf(figures.vectorBuild.js),
    },
    ratioLabel: '× the speed of the JavaScript build',
  });
  section.figures.push({
    name: `${where}: float32 vector ranking (${figures.scan}), ${size} chunks`,
    unit: 'ms',
    spread: figures.vectorFloat32,
    baseline: { name: 'JavaScript loop', unit: 'ms', spread: figures.vectorFloat32Js },
    ratioLabel: '× the speed of the JavaScript loop',
  });
  section.figures.push({
    name: `${where}: int8 vector ranking (${figures.scan}), ${size} chunks`,
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
  const loadAtStart = loadavg()[0] ?? 0;
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
    'Before: Node 10k 76 ms, 100k 1,040 ms; Chromium 10k 29 ms, 100k 739 ms; BM25 alone at 10k 38 ms (Node) and 12 ms (Chromium). MiniSearch built a result object for every chunk matching any term (about 60% of a 100k corpus with OR over 4 Zipf words) and sorted them all; the vector scan allocated per row and sorted every row. Then BM25 over typed-array postings with a bounded heap (under 1 ms at 10k; it scores as MiniSearch does, the unit tests compare every score) and the vector scan as one JavaScript loop over one contiguous matrix: hybrid Node 10k 35 ms, 100k 244 ms; Chromium 10k 12 ms, 100k 384 ms (load average 31–35), the scan itself 100k × 384 multiply-adds, about 30 ms at best and 190–280 ms under load.',
    'Now the scan is a WebAssembly SIMD kernel (src/core/rag/dot-kernel.ts, encoded in TypeScript at load, no toolchain): rows live in wasm memory, sized once at index build, and each row is one pass of four f32x4 multiply-add sums (int8 rows: i16x8 widening and i32x4.dot_i16x8_s against an int16 query, one scale per row), scores written to wasm memory and read by the same bounded heap. At 100k float32 it reads 147 MiB per query, so it runs at about memory bandwidth; the "JavaScript loop" baseline is the fallback where SIMD does not validate, measured in the same run.',
    'int8 rows keep three quarters of the matrix memory off at recall@10 0.98–0.99 and, with SIMD, are also the fastest scan (a quarter of the bytes to read). In the JavaScript loop they are not faster: an Int8Array read costs what a Float32Array read does. The project search uses them from 20,000 chunks.',
    'The project search (src/workers/embedding/project-search.ts) now keeps the built index for its two most recent projects until a write to files or chunks (any tab or worker), so the index build below is paid once per change, not per search.',
    'Fuzzy terms now come from Carrel\'s own term dictionary (src/core/rag/term-dictionary.ts: a flat trie in typed arrays, one banded Levenshtein row per node, subtrees cut by the row\'s best and by the lengths below), not MiniSearch\'s radix tree, whose walk took most of a 10k keyword query; the "fuzzy term lookups" row times one query\'s lookups in both, same terms and distances (property-tested). The vector index now normalises each row straight into its matrix: before, it made a unit copy of every row and checked each value through a callback before copying it into wasm memory, and the SIMD build was slower than the JavaScript one (1.1–1.5 s against 0.8–0.9 s at 100k); the "vector index build" rows compare the two builds in the same run.',
    `Load average (1 min) at start and end of this run: ${loadAtStart.toFixed(1)} and ${(loadavg()[0] ?? 0).toFixed(1)} on ${cpus().length} cores.`,
  );
  await emitSection(section);
}

await main();
