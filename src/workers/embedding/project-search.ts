/**
 * The ProjectSearch port over the stores: the project's chunks are ranked by BM25 and, when
 * an embedder is available and vectors of its model exist, by cosine similarity (core/rag).
 * Without a model, or before embeddings exist, it answers with BM25 alone and says so.
 *
 * Opening a project reads its stored snapshot (the whole index as the last search joined it:
 * postings by term and unit vector rows, core/rag/search-block.ts) when it was joined from the
 * files the project has now, under the same names, for the same embedding model; any write of
 * the project's chunks drops it. Otherwise the index is joined from each file's stored search
 * block (keyword counts and packed vectors); a file whose block is missing, stale or unreadable
 * has it rebuilt from its chunks and stored, and the joined index is stored as the new snapshot
 * after the search answers. So a large project opens from one row of packed arrays, and no
 * chunk is tokenized twice. Memory holds what ranking needs (ids, locations, postings,
 * vectors): a snapshot's postings stay in its stored Blob until a search reads its terms' (a
 * term found damaged then has the index joined from the blocks and the snapshot replaced), and
 * the text of the hits is read when they are returned. With `watchWrites` the joined
 * index is kept for the most recent projects and dropped on any write to files or chunks
 * (ingest, embedding, deletion, backup import: in any tab or worker). Without it, every search
 * joins the blocks afresh.
 */
import type { FileId, ProjectId } from '../../core/model';
import { compareIds } from '../../util/compare';
import type {
  ChunkStore,
  Embedder,
  FileInfo,
  FileName,
  FileSearchBlock,
  FileStore,
  KeywordOnlyReason,
  ProjectSearch,
  ProjectSearchHit,
  SearchBlockStore,
  StoredProjectSnapshot,
} from '../../core/ports';
import {
  buildFileSearchBlock,
  createRetrieverFromBlocks,
  DamagedIndexError,
  DEFAULT_TOP_K,
  hasAnyVector,
  isSearchBlockUsable,
  PER_FILE_CAP,
  restoreRetrieverFromSnapshot,
  SEARCH_SNAPSHOT_FORMAT,
  type BlockRetriever,
  type JoinedRetriever,
} from '../../core/rag';

/** From this many chunks the vectors are held as 8-bit rows (384 floats × 20,000 = 30 MB). */
export const INT8_FROM_CHUNKS = 20_000;
/** Indexes kept at once: a large project's postings and vectors take tens of MB. */
export const CACHED_PROJECTS = 2;

export interface ProjectSearchDeps {
  files: FileStore;
  chunks: ChunkStore;
  searchBlocks: SearchBlockStore;
  /** The current embedder, or null when no model is chosen or it could not load. */
  loadEmbedder(): Promise<Embedder | null>;
  topK?: number;
  perFileCap?: number;
  /**
   * Calls `onWrite` after any committed write to files or chunks, from any tab or worker;
   * returns the unsubscribe function (storage/watch-writes.ts). Enables the index cache.
   */
  watchWrites?: (onWrite: () => void) => () => void;
  /**
   * Runs work that no answer waits for (storing a freshly joined snapshot); by default on a
   * timer after the current search, its failure ignored (the next open joins the blocks again).
   */
  runInBackground?: (work: () => Promise<unknown>) => void;
}

function runSoon(work: () => Promise<unknown>): void {
  setTimeout(() => {
    work().catch(() => undefined);
  }, 0);
}

/** One project's index, for one embedding model (or none). */
interface ProjectIndex extends BlockRetriever {
  modelId: string | null;
  /**
   * The project's files by id, as far as read: a hit names its file. A join reads them all; an
   * index from the snapshot reads each when a hit first needs it (any write drops the index).
   */
  files: Map<FileId, FileInfo>;
}

export function createProjectSearch(deps: ProjectSearchDeps): ProjectSearch {
  const cache = createIndexCache(deps.watchWrites);

  /** Every file's block, in file id order (the order the chunks are indexed in). */
  async function loadBlocks(files: readonly FileInfo[], projectId: ProjectId): Promise<FileSearchBlock[]> {
    const stored = await deps.searchBlocks.listByProject(projectId);
    const blocks: FileSearchBlock[] = [];
    for (const file of files) {
      const block = stored.get(file.id);
      blocks.push(
        block !== undefined && isSearchBlockUsable(block, file) ? block : await rebuildBlock(file),
      );
    }
    return blocks;
  }

  async function rebuildBlock(file: FileInfo): Promise<FileSearchBlock> {
    const { revision, chunks } = await deps.searchBlocks.readChunks(file.id);
    const block = buildFileSearchBlock(file, chunks);
    // Refused when the chunks changed meanwhile: this search still uses what it read.
    await deps.searchBlocks.put(block, revision);
    return block;
  }

  /**
   * The stored snapshot's index, if it was joined from these files for the current model. Its
   * arrays (44 MB at 100k chunks, the postings left in the store) are read only once its row
   * names these files, and while the embedding model loads (seconds on a first search, against
   * about 300 ms for that read): when the model turns out to be another, the bytes read go
   * unused and the blocks are joined.
   */
  async function restoreSnapshot(
    stored: StoredProjectSnapshot,
    files: readonly FileName[],
  ): Promise<ProjectIndex | null> {
    if (!isSnapshotOf(stored, files)) return null;
    // Its postings stay in the store: each search reads its terms' (see prepare).
    const [embedder, snapshot] = await Promise.all([
      stored.head.hasAnyVector ? loadEmbedderOrNull() : null,
      stored.open(),
    ]);
    const modelId = embedder?.modelId ?? null;
    if (modelId !== stored.head.modelId || snapshot === null) return null;
    try {
      return { ...restoreRetrieverFromSnapshot(snapshot), modelId, files: new Map() };
    } catch {
      // A snapshot whose arrays disagree is joined again from the blocks, and replaced.
      return null;
    }
  }

  /** With `isSnapshotUsable` false, the stored snapshot is joined again and replaced. */
  async function buildIndex(projectId: ProjectId, isSnapshotUsable = true): Promise<ProjectIndex> {
    // The generation is read before any block: a write of the project's chunks after it
    // refuses the snapshot this build stores. The snapshot is checked against the files' ids
    // and names alone (an index's keys): their rows are read only to join the blocks.
    const [stored, names] = await Promise.all([
      deps.searchBlocks.readSnapshot(projectId),
      deps.files.listNamesByProject(projectId),
    ]);
    if (stored.snapshot !== null && isSnapshotUsable) {
      const restored = await restoreSnapshot(stored.snapshot, names);
      if (restored !== null) return restored;
    }
    const files = (await deps.files.listInfoByProject(projectId)).sort(compareIds);
    const fileById = new Map(files.map((file) => [file.id, file]));
    const index = await joinBlocks(projectId, files, fileById);
    (deps.runInBackground ?? runSoon)(() =>
      deps.searchBlocks.putSnapshot(projectId, index.exportSnapshot(), stored.generation),
    );
    return index;
  }

  async function joinBlocks(
    projectId: ProjectId,
    files: readonly FileInfo[],
    fileById: Map<FileId, FileInfo>,
  ): Promise<ProjectIndex & Pick<JoinedRetriever, 'exportSnapshot'>> {
    let blocks = await loadBlocks(files, projectId);
    // Loading a model is costly: only when some chunk has a vector to compare against.
    const embedder = hasAnyVector(blocks) ? await loadEmbedderOrNull() : null;
    const modelId = embedder?.modelId ?? null;
    const build = () =>
      createRetrieverFromBlocks(blocks, modelId, {
        isInt8: blocks.reduce((total, block) => total + block.chunkIds.length, 0) >= INT8_FROM_CHUNKS,
      });
    let index: JoinedRetriever;
    try {
      index = build();
    } catch {
      // Blocks that check out one by one can still disagree (a chunk id in two files' blocks,
      // left by a write no revision saw): rebuilt from the chunks, they cannot.
      blocks = [];
      for (const file of files) blocks.push(await rebuildBlock(file));
      index = build();
    }
    return { ...index, modelId, files: fileById };
  }

  /** Reads the files of these hits that the index has not read yet (one row each). */
  async function readHitFiles(
    index: ProjectIndex,
    projectId: ProjectId,
    hits: ReadonlyArray<{ chunk: { fileId: FileId } }>,
  ): Promise<void> {
    const unread = [...new Set(hits.map(({ chunk }) => chunk.fileId))].filter((id) => !index.files.has(id));
    const read = await Promise.all(unread.map((id) => deps.files.getInfo(id)));
    read.forEach((file) => {
      if (file !== undefined && file.projectId === projectId) index.files.set(file.id, file);
    });
  }

  async function loadEmbedderOrNull(): Promise<Embedder | null> {
    return deps.loadEmbedder().catch(() => null);
  }

  /** The index to search, current for the chosen embedding model, and that model. */
  async function openIndex(
    projectId: ProjectId,
  ): Promise<{ index: ProjectIndex; embedder: Embedder | null }> {
    let index = await cache.get(projectId, () => buildIndex(projectId));
    let embedder = index.hasAnyVector ? await loadEmbedderOrNull() : null;
    // The chosen model changed (or loaded, or failed) since the index was built.
    if ((embedder?.modelId ?? null) !== index.modelId) {
      index = await cache.rebuild(projectId, () => buildIndex(projectId));
      embedder = index.hasAnyVector ? await loadEmbedderOrNull() : null;
    }
    return { index, embedder };
  }

  async function rank(
    index: ProjectIndex,
    embedder: Embedder | null,
    queries: readonly string[],
    signal: AbortSignal,
  ) {
    const { retriever } = index;
    const [queryVectors] = await Promise.all([
      embedder !== null && embedder.modelId === index.modelId && retriever.hasVectors
        ? embedder.embed(queries, 'query', signal)
        : null,
      retriever.prepare(queries),
    ]);
    return retriever.retrieve(queries, queryVectors, {
      topK: deps.topK ?? DEFAULT_TOP_K,
      perFileCap: deps.perFileCap ?? PER_FILE_CAP,
    });
  }

  return {
    async prepare(projectId) {
      try {
        // Only a current snapshot is read ahead: joining the blocks is a search's work.
        const [stored, names] = await Promise.all([
          deps.searchBlocks.readSnapshot(projectId),
          deps.files.listNamesByProject(projectId),
        ]);
        if (stored.snapshot === null || !isSnapshotOf(stored.snapshot, names)) return;
        // Opened as a search opens it, reading the row and the names again: only what is read
        // once the cache listens for writes may be kept (a write in between would go unseen).
        const { index } = await openIndex(projectId);
        index.prepareScan();
      } catch {
        // The search that follows reads the project again, and says what went wrong.
      }
    },
    async search(projectId, queries, signal) {
      let { index, embedder } = await openIndex(projectId);
      let result;
      try {
        result = await rank(index, embedder, queries, signal);
      } catch (error) {
        if (!(error instanceof DamagedIndexError)) throw error;
        // Postings of the stored snapshot that a search found damaged as it first read them:
        // the index is joined from the blocks, and the snapshot replaced.
        index = await cache.rebuild(projectId, () => buildIndex(projectId, false));
        embedder = index.hasAnyVector ? await loadEmbedderOrNull() : null;
        result = await rank(index, embedder, queries, signal);
      }
      const [stored] = await Promise.all([
        deps.chunks.getMany(result.hits.map(({ chunk }) => chunk.id)),
        readHitFiles(index, projectId, result.hits),
      ]);
      // An index just restored from its snapshot scanned its vectors where they were read; the
      // faster scan is readied once this answer is on its way (a no-op from then on).
      const answered = index;
      setTimeout(() => answered.prepareScan(), 0);
      return {
        mode: result.mode,
        keywordOnlyReason: result.mode === 'hybrid' ? null : explainKeywordOnly(index, embedder),
        // A hit whose chunk or file went since the index was built is left out.
        hits: result.hits.flatMap(({ chunk, score }, at): ProjectSearchHit[] => {
          const file = index.files.get(chunk.fileId);
          const text = stored[at]?.text;
          if (file === undefined || text === undefined) return [];
          return [
            {
              fileId: file.id,
              fileName: file.name,
              mimeType: file.mimeType,
              text,
              location: chunk.location,
              score,
            },
          ];
        }),
      };
    },
  };
}

/** Whether a stored snapshot was joined, in this format, from exactly these files and names. */
function isSnapshotOf(stored: StoredProjectSnapshot, files: readonly FileName[]): boolean {
  const { format, fileIds, fileNames } = stored.head;
  return (
    format === SEARCH_SNAPSHOT_FORMAT &&
    fileIds.length === files.length &&
    files.every((file, at) => file.id === fileIds[at] && file.name === fileNames[at])
  );
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
