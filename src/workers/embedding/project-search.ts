/**
 * The ProjectSearch port over the stores: the project's chunks are ranked by BM25 and, when
 * an embedder is available and vectors of its model exist, by cosine similarity (core/rag).
 * Without a model, or before embeddings exist, it answers with BM25 alone and says so.
 *
 * Reading a large project and indexing it costs far more than a query, so with `watchWrites`
 * the built index is kept for the most recent projects and dropped on any write to files or
 * chunks (ingest, embedding, deletion, backup import: in any tab or worker). Without it, every
 * search reads and indexes the project afresh.
 */
import type { FileId, ProjectId } from '../../core/model';
import type {
  ChunkStore,
  Embedder,
  FileInfo,
  FileStore,
  KeywordOnlyReason,
  ProjectSearch,
  ProjectSearchHit,
} from '../../core/ports';
import {
  createHybridRetriever,
  DEFAULT_TOP_K,
  PER_FILE_CAP,
  type HybridRetriever,
  type RetrievalChunk,
} from '../../core/rag';

/** From this many chunks the vectors are held as 8-bit rows (384 floats × 20,000 = 30 MB). */
export const INT8_FROM_CHUNKS = 20_000;
/** Indexes kept at once: a large project's chunks and vectors take hundreds of MB. */
export const CACHED_PROJECTS = 2;

export interface ProjectSearchDeps {
  files: FileStore;
  chunks: ChunkStore;
  /** The current embedder, or null when no model is chosen or it could not load. */
  loadEmbedder(): Promise<Embedder | null>;
  topK?: number;
  perFileCap?: number;
  /**
   * Calls `onWrite` after any committed write to files or chunks, from any tab or worker;
   * returns the unsubscribe function (storage/watch-writes.ts). Enables the index cache.
   */
  watchWrites?: (onWrite: () => void) => () => void;
}

/** A chunk with its file's name and type, never the file's text (which a search does not need). */
type SearchableChunk = RetrievalChunk & { file: FileInfo; location: string };

/** One project's index, for one embedding model (or none). */
interface ProjectIndex {
  modelId: string | null;
  /** Passages with their file still in the project. */
  chunkCount: number;
  /** Some chunk has a vector (of any model): only then is a model worth loading. */
  hasAnyVector: boolean;
  retriever: HybridRetriever<SearchableChunk>;
}

export function createProjectSearch(deps: ProjectSearchDeps): ProjectSearch {
  const cache = createIndexCache(deps.watchWrites);

  async function buildIndex(projectId: ProjectId): Promise<ProjectIndex> {
    const [files, chunks] = await Promise.all([
      deps.files.listInfoByProject(projectId),
      deps.chunks.listByProject(projectId),
    ]);
    const fileById = new Map<FileId, FileInfo>(files.map((file) => [file.id, file]));
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
          location: chunk.location ?? '',
          file,
        },
      ];
    });
    // Loading a model is costly: only when some chunk has a vector to compare against.
    const hasAnyVector = searchable.some((chunk) => chunk.embedding !== null);
    const embedder = hasAnyVector ? await loadEmbedderOrNull() : null;
    const modelId = embedder?.modelId ?? null;
    const retriever = createHybridRetriever(searchable, modelId, {
      isInt8: searchable.length >= INT8_FROM_CHUNKS,
    });
    // The retriever's matrix holds the vectors now; a cached index need not keep them twice.
    for (const chunk of searchable) chunk.embedding = null;
    return { modelId, chunkCount: searchable.length, hasAnyVector, retriever };
  }

  async function loadEmbedderOrNull(): Promise<Embedder | null> {
    return deps.loadEmbedder().catch(() => null);
  }

  return {
    async search(projectId, queries, signal) {
      let index = await cache.get(projectId, () => buildIndex(projectId));
      let embedder = index.hasAnyVector ? await loadEmbedderOrNull() : null;
      // The chosen model changed (or loaded, or failed) since the index was built.
      if ((embedder?.modelId ?? null) !== index.modelId) {
        index = await cache.rebuild(projectId, () => buildIndex(projectId));
        embedder = index.hasAnyVector ? await loadEmbedderOrNull() : null;
      }
      const { retriever } = index;
      const queryVectors =
        embedder !== null && embedder.modelId === index.modelId && retriever.hasVectors
          ? await embedder.embed(queries, 'query', signal)
          : null;
      const result = retriever.retrieve(queries, queryVectors, {
        topK: deps.topK ?? DEFAULT_TOP_K,
        perFileCap: deps.perFileCap ?? PER_FILE_CAP,
      });
      return {
        mode: result.mode,
        keywordOnlyReason: result.mode === 'hybrid' ? null : explainKeywordOnly(index, embedder),
        hits: result.hits.map(({ chunk, score }): ProjectSearchHit => ({
          fileId: chunk.file.id,
          fileName: chunk.file.name,
          mimeType: chunk.file.mimeType,
          text: chunk.text,
          location: chunk.location,
          score,
        })),
      };
    },
  };
}

function explainKeywordOnly(index: ProjectIndex, embedder: Embedder | null): KeywordOnlyReason {
  if (index.chunkCount === 0) return 'no_passages';
  if (!index.hasAnyVector) return 'not_embedded';
  // Vectors exist: either the model could not load, or none of them is of its model.
  return embedder === null ? 'model_unavailable' : 'not_embedded';
}

interface IndexCache {
  /** The cached index, or a fresh one (shared by concurrent callers while it builds). */
  get(projectId: ProjectId, build: () => Promise<ProjectIndex>): Promise<ProjectIndex>;
  /** Builds afresh and caches the result. */
  rebuild(projectId: ProjectId, build: () => Promise<ProjectIndex>): Promise<ProjectIndex>;
}

/**
 * Most recently used first, at most CACHED_PROJECTS. A write drops every entry, including one
 * still building (its callers still get it: they asked before the write). Listening starts
 * with the first entry and stops when a write empties the cache.
 */
function createIndexCache(watchWrites: ProjectSearchDeps['watchWrites']): IndexCache {
  if (watchWrites === undefined) {
    return { get: (_projectId, build) => build(), rebuild: (_projectId, build) => build() };
  }
  const watch = watchWrites;
  const entries = new Map<ProjectId, Promise<ProjectIndex>>();
  let unwatch: (() => void) | null = null;

  function dropAll(): void {
    entries.clear();
    unwatch?.();
    unwatch = null;
  }

  function store(projectId: ProjectId, build: () => Promise<ProjectIndex>): Promise<ProjectIndex> {
    // Listen before reading, so a write that lands while the project is read still counts.
    unwatch ??= watch(dropAll);
    const pending = build();
    entries.delete(projectId);
    entries.set(projectId, pending);
    for (const oldest of entries.keys()) {
      if (entries.size <= CACHED_PROJECTS) break;
      entries.delete(oldest);
    }
    // A failed build is not kept: the next search tries again.
    pending.catch(() => {
      if (entries.get(projectId) === pending) entries.delete(projectId);
    });
    return pending;
  }

  return {
    get(projectId, build) {
      const cached = entries.get(projectId);
      if (cached === undefined) return store(projectId, build);
      entries.delete(projectId);
      entries.set(projectId, cached);
      return cached;
    },
    rebuild: store,
  };
}
