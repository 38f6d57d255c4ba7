import { create, insertMultiple, search } from '@orama/orama';
import MiniSearch from 'minisearch';
import {
  KEYWORD_STOP_WORDS,
  createHybridRetriever,
  createKeywordIndex,
  createVectorIndex,
  normalizeTerm,
  type RankedId,
  type RetrievalChunk,
} from '../../../src/core/rag';

/**
 * The retrieval engines a person building a browser app would reach for, set up over the same
 * chunks as Carrel's retriever and asked the same top-10 questions. Shared by the speed bench
 * (Node and Chromium) and the recall bench, so both measure one configuration.
 *
 * - MiniSearch: full text with Carrel's tokeniser, stop words, title boost (1.5), OR, prefix
 *   search for terms of 4+ letters and fuzzy search (0.15 of the length) for 6+: the settings
 *   Carrel's own keyword index reproduces, so the two return the same ranking.
 * - Orama: full text with its English tokeniser (no stemming) and Carrel's stop words, title
 *   boost 1.5, its default prefix matching and no typo tolerance (less work than Carrel's
 *   fuzzy matching); vectors with `similarity: -1`, so every row is ranked as Carrel ranks them
 *   (its default 0.8 drops most rows of a real embedding model); hybrid with its own weights.
 */

export type EngineId = 'carrel' | 'minisearch' | 'orama';
export type SearchMode = 'hybrid' | 'keyword' | 'vector';

export interface EngineQuery {
  text: string;
  vector: Float32Array;
}

/** One engine's built index: the ids of its top `limit` per mode it supports. */
export interface BuiltEngine {
  readonly modes: readonly SearchMode[];
  search(mode: SearchMode, query: EngineQuery, limit: number): string[];
}

export interface EngineSpec {
  id: EngineId;
  label: string;
  build(chunks: readonly RetrievalChunk[]): Promise<BuiltEngine>;
}

const TITLE_BOOST = 1.5;
const ids = (ranked: readonly RankedId[]): string[] => ranked.map((entry) => entry.id);

/** Builds once, on first use: Carrel's single-mode figures need indexes the retriever hides. */
function lazily<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

const carrel: EngineSpec = {
  id: 'carrel',
  label: 'Carrel',
  build(chunks) {
    const model = chunks.find((chunk) => chunk.embeddingModel !== null)?.embeddingModel ?? null;
    const retriever = createHybridRetriever(chunks, model);
    // Outside the build time and memory: the retriever holds the same two indexes inside.
    const keywords = lazily(() =>
      createKeywordIndex(chunks.map(({ id, text, title }) => ({ id, text, title }))),
    );
    const vectors = lazily(() =>
      createVectorIndex(
        chunks.flatMap((chunk) =>
          chunk.embedding === null ? [] : [{ id: chunk.id, vector: chunk.embedding }],
        ),
      ),
    );
    return Promise.resolve({
      modes: ['hybrid', 'keyword', 'vector'],
      search(mode, query, limit) {
        if (mode === 'keyword') return ids(keywords().search(query.text, limit));
        if (mode === 'vector') return ids(vectors().search(query.vector, limit));
        return retriever
          .retrieve([query.text], [query.vector], { topK: limit })
          .hits.map((hit) => hit.chunk.id);
      },
    });
  },
};

/** Carrel's keyword index alone, for its build time and memory next to MiniSearch's. */
export const carrelKeywordOnly: EngineSpec = {
  id: 'carrel',
  label: 'Carrel BM25',
  build(chunks) {
    const keywords = createKeywordIndex(chunks.map(({ id, text, title }) => ({ id, text, title })));
    return Promise.resolve({
      modes: ['keyword'],
      search: (_mode, query, limit) => ids(keywords.search(query.text, limit)),
    });
  },
};

const minisearch: EngineSpec = {
  id: 'minisearch',
  label: 'MiniSearch',
  build(chunks) {
    const index = new MiniSearch<RetrievalChunk>({
      fields: ['text', 'title'],
      processTerm: normalizeTerm,
      searchOptions: {
        boost: { title: TITLE_BOOST },
        combineWith: 'OR',
        prefix: (term) => term.length > 3,
        fuzzy: (term) => (term.length > 5 ? 0.15 : false),
      },
    });
    index.addAll(chunks);
    return Promise.resolve({
      modes: ['keyword'],
      search: (_mode, query, limit) =>
        index
          .search(query.text)
          .slice(0, limit)
          .map((hit) => String(hit.id)),
    });
  },
};

const orama: EngineSpec = {
  id: 'orama',
  label: 'Orama',
  async build(chunks) {
    const dimensions = chunks.find((chunk) => chunk.embedding !== null)?.embedding?.length ?? 0;
    const database = create({
      schema: { text: 'string', title: 'string', embedding: `vector[${dimensions}]` },
      components: { tokenizer: { stopWords: [...KEYWORD_STOP_WORDS] } },
    });
    await insertMultiple(
      database,
      chunks.map((chunk) => ({
        id: chunk.id,
        text: chunk.text,
        title: chunk.title,
        // Orama takes plain arrays only (it keeps them in its documents, and a Float32Array copy).
        embedding: Array.from(chunk.embedding ?? new Float32Array(dimensions)),
      })),
    );
    const searched: Array<'text' | 'title'> = ['text', 'title'];
    const text = { properties: searched, boost: { title: TITLE_BOOST } };
    const vector = (query: EngineQuery) => ({
      vector: { value: query.vector, property: 'embedding' },
      similarity: -1,
    });
    return {
      modes: ['hybrid', 'keyword', 'vector'],
      search(mode, query, limit) {
        const results =
          mode === 'keyword'
            ? search(database, { term: query.text, ...text, limit })
            : mode === 'vector'
              ? search(database, { mode: 'vector', ...vector(query), limit })
              : search(database, {
                  mode: 'hybrid',
                  term: query.text,
                  ...text,
                  ...vector(query),
                  limit,
                });
        // Without asynchronous hooks Orama answers synchronously.
        if (results instanceof Promise) throw new Error('Orama answered asynchronously');
        return results.hits.map((hit) => hit.id);
      },
    };
  },
};

export const ENGINES: readonly EngineSpec[] = [carrel, minisearch, orama];

export interface EngineFigures {
  engine: EngineId;
  label: string;
  /** One build per run. */
  buildMs: number[];
  /** Heap and external memory the built index added, per run; null where it cannot be read. */
  memoryBytes: number[] | null;
  /** Per-query times of every run together, and each run's median, per mode. */
  queryMs: Partial<Record<SearchMode, number[]>>;
  runMedianMs: Partial<Record<SearchMode, number[]>>;
}

export interface PeerFigures {
  size: number;
  engines: EngineFigures[];
  /** Share of MiniSearch's keyword top-10 that Carrel's keyword index returns too. */
  keywordAgreement: number;
}

export interface PeerRunOptions {
  runs: number;
  queryCount: number;
  /** Collects garbage and returns the bytes in use (heap plus external); Node only. */
  measureMemory?: () => number;
  /** Told when each engine's run is done (a long bench shows where it is). */
  onProgress?: (message: string) => void;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/**
 * Builds each engine `runs` times over the same chunks (one at a time, the previous one dropped)
 * and times the same top-10 queries in each mode it supports, after a few untimed ones.
 */
export async function measurePeers(
  chunks: readonly RetrievalChunk[],
  queries: readonly EngineQuery[],
  options: PeerRunOptions,
): Promise<PeerFigures> {
  const report = options.onProgress ?? (() => undefined);
  const specs = [...ENGINES, carrelKeywordOnly];
  const figures = specs.map((spec): EngineFigures => ({
    engine: spec.id,
    label: spec.label,
    buildMs: [],
    memoryBytes: options.measureMemory === undefined ? null : [],
    queryMs: {},
    runMedianMs: {},
  }));
  const keywordTops = new Map<EngineId, string[][]>();
  for (let run = 0; run < options.runs; run++) {
    for (const [index, spec] of specs.entries()) {
      const figure = figures[index] as EngineFigures;
      const before = options.measureMemory?.() ?? 0;
      const start = performance.now();
      let engine: BuiltEngine | null = await spec.build(chunks);
      figure.buildMs.push(performance.now() - start);
      if (options.measureMemory !== undefined)
        figure.memoryBytes?.push(options.measureMemory() - before);
      // The keyword-only build is there for its build figures; its queries are Carrel's.
      const modes = spec === carrelKeywordOnly ? [] : engine.modes;
      for (const mode of modes) {
        const built = engine;
        const samples: number[] = [];
        // A few untimed queries first, so the JIT has settled for every engine.
        for (const query of queries.slice(0, WARMUP_QUERIES)) built.search(mode, query, TOP_10);
        for (let at = 0; at < options.queryCount; at++) {
          const query = queries[at % queries.length] as EngineQuery;
          const queryStart = performance.now();
          const top = built.search(mode, query, TOP_10);
          samples.push(performance.now() - queryStart);
          if (run === 0 && mode === 'keyword') {
            const tops = keywordTops.get(spec.id) ?? [];
            tops.push(top);
            keywordTops.set(spec.id, tops);
          }
        }
        (figure.queryMs[mode] ??= []).push(...samples);
        (figure.runMedianMs[mode] ??= []).push(median(samples));
      }
      engine = null;
      report(`${chunks.length} chunks, run ${run + 1}: ${spec.label} done`);
    }
  }
  const carrelTops = keywordTops.get('carrel') ?? [];
  const miniTops = keywordTops.get('minisearch') ?? [];
  let agreement = 0;
  miniTops.forEach((expected, at) => {
    const found = new Set(carrelTops[at] ?? []);
    agreement += expected.filter((id) => found.has(id)).length / Math.max(1, expected.length);
  });
  return {
    size: chunks.length,
    engines: figures,
    keywordAgreement: miniTops.length === 0 ? 1 : agreement / miniTops.length,
  };
}

const TOP_10 = 10;
const WARMUP_QUERIES = 3;
