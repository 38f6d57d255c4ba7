/**
 * Hybrid retrieval: every query ranks the chunks by keywords (BM25) and, when vectors of the
 * current embedding model exist, by cosine similarity; all rankings are fused by reciprocal
 * rank, then the top K are taken with at most PER_FILE_CAP chunks from any one file.
 */
import { createKeywordIndex, type KeywordIndex, type RankedId } from './bm25-index';
import { fuseRankings } from './fuse-rankings';
import { createVectorIndex, type VectorIndex, type VectorIndexOptions } from './vector-index';

export const DEFAULT_TOP_K = 8;
export const PER_FILE_CAP = 3;
/** How deep each single ranking goes before fusion. */
export const CANDIDATES_PER_RANKING = 50;

export interface RetrievalChunk {
  id: string;
  fileId: string;
  /** File name (and heading path), searched with extra weight. */
  title: string;
  text: string;
  embedding: Float32Array | null;
  embeddingModel: string | null;
}

/** `keyword`: BM25 alone, because no vectors of the current model exist (the UI says so). */
export type RetrievalMode = 'hybrid' | 'keyword';

/** What a ranked chunk must carry: its id, and its file for the per-file cap. */
export interface RankedChunk {
  id: string;
  fileId: string;
}

export interface RetrievalHit<C extends RankedChunk = RetrievalChunk> {
  chunk: C;
  score: number;
}

export interface RetrievalOptions {
  topK?: number;
  perFileCap?: number;
}

export interface HybridRetriever<C extends RankedChunk = RetrievalChunk> {
  /** True when chunks carry vectors of the embedding model, so queries should be embedded. */
  readonly hasVectors: boolean;
  retrieve(
    queries: readonly string[],
    queryVectors: readonly Float32Array[] | null,
    options?: RetrievalOptions,
  ): { mode: RetrievalMode; hits: Array<RetrievalHit<C>> };
}

export function createHybridRetriever<C extends RetrievalChunk>(
  chunks: readonly C[],
  embeddingModel: string | null,
  vectorOptions: VectorIndexOptions = {},
): HybridRetriever<C> {
  const keywords = createKeywordIndex(chunks.map(({ id, text, title }) => ({ id, text, title })));
  const vectors = createVectorIndex(
    chunks.flatMap((chunk) =>
      chunk.embedding !== null && embeddingModel !== null && chunk.embeddingModel === embeddingModel
        ? [{ id: chunk.id, vector: chunk.embedding }]
        : [],
    ),
    vectorOptions,
  );
  return createHybridRetrieverOver(chunks, keywords, vectors);
}

/** A retriever over indexes already built; their ids are the chunks'. */
export function createHybridRetrieverOver<C extends RankedChunk>(
  chunks: readonly C[],
  keywords: KeywordIndex,
  vectors: VectorIndex,
): HybridRetriever<C> {
  const byId = new Map(chunks.map((chunk) => [chunk.id, chunk]));
  const hasVectors = vectors.size > 0;
  return {
    hasVectors,
    retrieve(queries, queryVectors, options = {}) {
      const isHybrid = hasVectors && queryVectors !== null && queryVectors.length > 0;
      const rankings: RankedId[][] = queries.map((query) =>
        keywords.search(query, CANDIDATES_PER_RANKING),
      );
      if (isHybrid) {
        for (const vector of queryVectors)
          rankings.push(vectors.search(vector, CANDIDATES_PER_RANKING));
      }
      const fused = fuseRankings(rankings);
      const hits = capPerFile(
        fused.flatMap((entry) => {
          const chunk = byId.get(entry.id);
          return chunk === undefined ? [] : [{ chunk, score: entry.score }];
        }),
        options.topK ?? DEFAULT_TOP_K,
        options.perFileCap ?? PER_FILE_CAP,
      );
      return { mode: isHybrid ? 'hybrid' : 'keyword', hits };
    },
  };
}

/** The best `topK` hits, skipping a file's hits once it has `perFileCap` of them. */
export function capPerFile<H extends { chunk: { fileId: string } }>(
  hits: readonly H[],
  topK: number,
  perFileCap: number,
): H[] {
  const perFile = new Map<string, number>();
  const kept: H[] = [];
  for (const hit of hits) {
    if (kept.length >= topK) break;
    const count = perFile.get(hit.chunk.fileId) ?? 0;
    if (count >= perFileCap) continue;
    perFile.set(hit.chunk.fileId, count + 1);
    kept.push(hit);
  }
  return kept;
}
