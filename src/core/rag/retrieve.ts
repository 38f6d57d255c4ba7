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
  /**
   * Reads from the store what ranking these queries needs, for an index opened with its
   * postings left there; resolves at once for any other. Call it before `retrieve`.
   */
  prepare(queries: readonly string[]): Promise<void>;
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
  const vectorPositions: number[] = [];
  const vectors = createVectorIndex(
    chunks.flatMap((chunk, position) => {
      if (
        chunk.embedding === null ||
        embeddingModel === null ||
        chunk.embeddingModel !== embeddingModel
      )
        return [];
      vectorPositions.push(position);
      return [{ id: chunk.id, vector: chunk.embedding }];
    }),
    vectorOptions,
  );
  return createHybridRetrieverOver(listChunks(chunks, vectorPositions), keywords, vectors);
}

/**
 * The chunks a retriever ranks, by position: the keyword index's documents are the chunks in
 * this order, and each vector row is one chunk's.
 */
export interface ChunkTable<C extends RankedChunk> {
  /** The chunk at a position (made when asked for, so a restored index makes only its hits). */
  at(position: number): C;
  /** The position of the chunk a vector hit's `row` names. */
  positionOfVectorRow(row: number): number;
}

/**
 * The table of chunks held in a list. `vectorPositions[row]` is the position of the chunk whose
 * vector was entry `row` of the list the vector index was built from.
 */
export function listChunks<C extends RankedChunk>(
  chunks: readonly C[],
  vectorPositions: ArrayLike<number>,
): ChunkTable<C> {
  return {
    at: (position) => chunks[position] as C,
    positionOfVectorRow: (row) => vectorPositions[row] as number,
  };
}

/**
 * A retriever over indexes already built; each ranks by position in `chunks` (see ChunkTable),
 * so no lookup by id is made: a restored index of 100,000 chunks would spend about 100 ms
 * mapping their ids before its first answer.
 */
export function createHybridRetrieverOver<C extends RankedChunk>(
  chunks: ChunkTable<C>,
  keywords: KeywordIndex,
  vectors: VectorIndex,
): HybridRetriever<C> {
  const hasVectors = vectors.size > 0;
  return {
    hasVectors,
    async prepare(queries) {
      await Promise.all(queries.map((query) => keywords.prepare(query)));
    },
    retrieve(queries, queryVectors, options = {}) {
      const isHybrid = hasVectors && queryVectors !== null && queryVectors.length > 0;
      const rankings: RankedId[][] = queries.map((query) =>
        keywords.search(query, CANDIDATES_PER_RANKING),
      );
      if (isHybrid) {
        for (const vector of queryVectors) {
          rankings.push(
            vectors
              .search(vector, CANDIDATES_PER_RANKING)
              .map((entry) => ({ ...entry, row: chunks.positionOfVectorRow(entry.row) })),
          );
        }
      }
      const hits = capPerFile(
        fuseRankings(rankings).map((entry) => ({
          chunk: chunks.at(entry.row),
          score: entry.score,
        })),
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
