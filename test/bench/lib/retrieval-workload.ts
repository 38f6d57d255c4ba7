import MiniSearch from 'minisearch';
import SearchableMap from 'minisearch/SearchableMap';
import {
  CANDIDATES_PER_RANKING,
  createHybridRetriever,
  createKeywordIndex,
  createVectorIndex,
  measureFuzzyDistance,
  normalizeTerm,
  type RetrievalChunk,
  type VectorScan,
} from '../../../src/core/rag';
import { createTermDictionary } from '../../../src/core/rag/term-dictionary';
import { createRandom, summarizeSamples, type Spread } from './stats';
import { createZipfProseSource } from './synthetic-text';

/**
 * Bench 3's workload, shared by Node and the Chromium bench page: synthetic chunks with unit
 * vectors grouped around topics (so nearest neighbours are meaningful and int8 recall is a real
 * test) and prose text for BM25, queried through the project's hybrid retriever.
 */

export const DIMENSIONS = 384;
export const TOP_K = 10;
const TOPICS = 256;
const FILES = 500;
const WORDS_PER_CHUNK = 40;
/** How far a chunk (or query) strays from its topic centre, relative to the centre's length. */
const CHUNK_NOISE = 0.6;
const QUERY_NOISE = 0.3;
export const MODEL = 'bench-minilm-shaped';

function createGaussian(random: () => number): () => number {
  return () => {
    const u = Math.max(random(), Number.EPSILON);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  };
}

function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  const scale = 1 / Math.sqrt(norm);
  for (let index = 0; index < vector.length; index++)
    vector[index] = (vector[index] as number) * scale;
  return vector;
}

function createNear(centre: Float32Array, noise: number, gaussian: () => number): Float32Array {
  const vector = new Float32Array(DIMENSIONS);
  const perDimension = noise / Math.sqrt(DIMENSIONS);
  for (let index = 0; index < DIMENSIONS; index++)
    vector[index] = (centre[index] as number) + perDimension * gaussian() * Math.sqrt(DIMENSIONS);
  return normalize(vector);
}

export interface Corpus {
  chunks: RetrievalChunk[];
  queries: Array<{ text: string; vector: Float32Array }>;
}

export function createCorpus(size: number, queryCount: number): Corpus {
  const random = createRandom(size + 11);
  const gaussian = createGaussian(random);
  const createProse = createZipfProseSource(random);
  const centres = Array.from({ length: TOPICS }, () => {
    const centre = new Float32Array(DIMENSIONS);
    for (let index = 0; index < DIMENSIONS; index++) centre[index] = gaussian();
    return normalize(centre);
  });
  const chunks: RetrievalChunk[] = [];
  for (let index = 0; index < size; index++) {
    const topic = index % TOPICS;
    chunks.push({
      id: `chunk-${index}`,
      fileId: `file-${index % FILES}`,
      title: `file-${index % FILES}.md`,
      text: createProse(WORDS_PER_CHUNK),
      embedding: createNear(centres[topic] as Float32Array, CHUNK_NOISE, gaussian),
      embeddingModel: MODEL,
    });
  }
  const queries = Array.from({ length: queryCount }, (_, index) => ({
    text: createProse(4),
    vector: createNear(centres[(index * 37) % TOPICS] as Float32Array, QUERY_NOISE, gaussian),
  }));
  return { chunks, queries };
}

export interface RetrievalFigures {
  size: number;
  buildMs: number;
  /** The project's hybrid retriever, float32 vectors: what a search tool call costs. */
  hybrid: Spread;
  /** The keyword half timed alone, to show where the time goes (skipped when not asked for). */
  keyword: Spread | null;
  /**
   * The fuzzy lookups of one query's terms (those long enough, at the keyword index's distance) in Carrel's term dictionary and in MiniSearch's radix tree, which it replaced;
   * null with `keyword`.
   */
  fuzzyLookup: { dictionary: Spread; radixTree: Spread } | null;
  /** Vector index builds: the SIMD index (rows in wasm memory) and the JavaScript loop's. */
  vectorBuild: { simd: number; js: number };
  /** The scan the index chose here (WebAssembly SIMD where the engine validates it). */
  scan: VectorScan;
  vectorFloat32: Spread;
  /** The same float32 ranking with the JavaScript loop (the fallback without SIMD). */
  vectorFloat32Js: Spread;
  vectorInt8: Spread;
  /** Share of float32's top-10 (vector ranking alone) that int8 also returns. */
  vectorRecallInt8: number;
  /** Bytes the vector matrices hold (float32 rows; int8 rows plus one scale per row). */
  float32Bytes: number;
  int8Bytes: number;
}

function timeQueries(run: (index: number) => unknown, count: number): Spread {
  run(0);
  const samples: number[] = [];
  for (let index = 0; index < count; index++) {
    const start = performance.now();
    run(index);
    samples.push(performance.now() - start);
  }
  return summarizeSamples(samples);
}

function overlap(expected: readonly string[], actual: readonly string[]): number {
  const wanted = new Set(expected);
  return actual.filter((id) => wanted.has(id)).length / Math.max(1, expected.length);
}

/** Times hybrid top-10 queries and each ranking alone, and compares int8 rows to float32. */
export function measureRetrieval(
  size: number,
  queryCount: number,
  shouldTimeKeywordsAlone: boolean,
): RetrievalFigures {
  const { chunks, queries } = createCorpus(size, queryCount);
  const queryAt = (index: number) => queries[index % queries.length] as Corpus['queries'][number];
  const buildStart = performance.now();
  const retriever = createHybridRetriever(chunks, MODEL);
  const buildMs = performance.now() - buildStart;
  const hybrid = timeQueries((index) => {
    const query = queryAt(index);
    return retriever.retrieve([query.text], [query.vector], { topK: TOP_K });
  }, queryCount);

  // A second BM25 index costs seconds at 100k chunks; the breakdown is asked for at 10k only.
  let keyword: Spread | null = null;
  let fuzzyLookup: RetrievalFigures['fuzzyLookup'] = null;
  if (shouldTimeKeywordsAlone) {
    const keywords = createKeywordIndex(chunks.map(({ id, text, title }) => ({ id, text, title })));
    keyword = timeQueries(
      (index) => keywords.search(queryAt(index).text, CANDIDATES_PER_RANKING),
      queryCount,
    );
    fuzzyLookup = timeFuzzyLookups(chunks, queries);
  }
  const entries = chunks.map((chunk) => ({
    id: chunk.id,
    vector: chunk.embedding as Float32Array,
  }));
  const simdBuildStart = performance.now();
  const floatVectors = createVectorIndex(entries);
  const simdBuildMs = performance.now() - simdBuildStart;
  const vectorFloat32 = timeQueries(
    (index) => floatVectors.search(queryAt(index).vector, CANDIDATES_PER_RANKING),
    queryCount,
  );
  const jsBuildStart = performance.now();
  const jsVectors = createVectorIndex(entries, { useSimd: false });
  const jsBuildMs = performance.now() - jsBuildStart;
  const vectorFloat32Js = timeQueries(
    (index) => jsVectors.search(queryAt(index).vector, CANDIDATES_PER_RANKING),
    queryCount,
  );
  const int8Vectors = createVectorIndex(entries, { isInt8: true });
  const vectorInt8 = timeQueries(
    (index) => int8Vectors.search(queryAt(index).vector, CANDIDATES_PER_RANKING),
    queryCount,
  );
  let recall = 0;
  for (const query of queries) {
    recall += overlap(
      floatVectors.search(query.vector, TOP_K).map((hit) => hit.id),
      int8Vectors.search(query.vector, TOP_K).map((hit) => hit.id),
    );
  }
  return {
    size,
    buildMs,
    hybrid,
    keyword,
    fuzzyLookup,
    vectorBuild: { simd: simdBuildMs, js: jsBuildMs },
    scan: floatVectors.scan,
    vectorFloat32,
    vectorFloat32Js,
    vectorInt8,
    vectorRecallInt8: recall / queries.length,
    float32Bytes: floatVectors.matrixBytes,
    int8Bytes: int8Vectors.matrixBytes,
  };
}

const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];

/** Times each query's fuzzy lookups in the term dictionary and in MiniSearch's radix tree. */
function timeFuzzyLookups(
  chunks: readonly RetrievalChunk[],
  queries: Corpus['queries'],
): { dictionary: Spread; radixTree: Spread } {
  const terms = new Set<string>();
  for (const chunk of chunks) {
    for (const token of tokenize(`${chunk.text} ${chunk.title}`)) {
      const term = normalizeTerm(token);
      if (term !== null) terms.add(term);
    }
  }
  const dictionary = createTermDictionary([...terms]);
  const tree = new SearchableMap<number>();
  [...terms].forEach((term, termId) => tree.set(term, termId));
  const queryTerms = queries.map((query) =>
    tokenize(query.text).flatMap((token) => {
      const term = normalizeTerm(token);
      return term !== null && measureFuzzyDistance(term) > 0 ? [term] : [];
    }),
  );
  let found = 0;
  const dictionaryTimes = timeQueries((index) => {
    for (const term of queryTerms[index % queryTerms.length] ?? [])
      dictionary.forEachWithin(term, measureFuzzyDistance(term), () => found++);
  }, queries.length);
  const radixTreeTimes = timeQueries((index) => {
    for (const term of queryTerms[index % queryTerms.length] ?? [])
      found += tree.fuzzyGet(term, measureFuzzyDistance(term)).size;
  }, queries.length);
  if (found === 0) throw new Error('No fuzzy matches: the workload does not exercise the lookup');
  return { dictionary: dictionaryTimes, radixTree: radixTreeTimes };
}
