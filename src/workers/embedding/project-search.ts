/**
 * The ProjectSearch port over the stores: the project's chunks are ranked by BM25 and, when
 * an embedder is available and vectors of its model exist, by cosine similarity (core/rag).
 * Without a model, or before embeddings exist, it answers with BM25 alone and says so.
 */
import type { FileId } from '../../core/model';
import type {
  ChunkStore,
  Embedder,
  FileStore,
  ProjectSearch,
  ProjectSearchHit,
  StoredFile,
  TextChunk,
} from '../../core/ports';
import {
  createHybridRetriever,
  DEFAULT_TOP_K,
  PER_FILE_CAP,
  type RetrievalChunk,
} from '../../core/rag';

/** From this many chunks the vectors are held as 8-bit rows (384 floats × 20,000 = 30 MB). */
export const INT8_FROM_CHUNKS = 20_000;

export interface ProjectSearchDeps {
  files: FileStore;
  chunks: ChunkStore;
  /** The current embedder, or null when no model is chosen or it could not load. */
  loadEmbedder(): Promise<Embedder | null>;
  topK?: number;
  perFileCap?: number;
}

type SearchableChunk = RetrievalChunk & { source: TextChunk; file: StoredFile };

export function createProjectSearch(deps: ProjectSearchDeps): ProjectSearch {
  return {
    async search(projectId, queries, signal) {
      const [files, chunks] = await Promise.all([
        deps.files.listByProject(projectId),
        deps.chunks.listByProject(projectId),
      ]);
      const fileById = new Map<FileId, StoredFile>(files.map((file) => [file.id, file]));
      const searchable = chunks.flatMap((chunk): SearchableChunk[] => {
        const file = fileById.get(chunk.fileId);
        if (file === undefined) return [];
        return [
          {
            id: chunk.id,
            fileId: chunk.fileId,
            title: file.name,
            text: chunk.text,
            embedding: chunk.embedding,
            embeddingModel: chunk.embeddingModel,
            source: chunk,
            file,
          },
        ];
      });
      // Loading a model is costly: only when some chunk has a vector to compare against.
      const hasAnyVector = searchable.some((chunk) => chunk.source.embedding !== null);
      const embedder = hasAnyVector ? await deps.loadEmbedder().catch(() => null) : null;
      const retriever = createHybridRetriever(searchable, embedder?.modelId ?? null, {
        isInt8: searchable.length >= INT8_FROM_CHUNKS,
      });
      const queryVectors =
        embedder !== null && retriever.hasVectors
          ? await embedder.embed(queries, 'query', signal)
          : null;
      const result = retriever.retrieve(queries, queryVectors, {
        topK: deps.topK ?? DEFAULT_TOP_K,
        perFileCap: deps.perFileCap ?? PER_FILE_CAP,
      });
      return {
        mode: result.mode,
        hits: result.hits.map(({ chunk, score }): ProjectSearchHit => ({
          fileId: chunk.file.id,
          fileName: chunk.file.name,
          mimeType: chunk.file.mimeType,
          text: chunk.text,
          location: chunk.source.location ?? '',
          score,
        })),
      };
    },
  };
}
