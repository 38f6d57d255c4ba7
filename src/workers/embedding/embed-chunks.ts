/**
 * Embeds stored chunks in batches and saves each batch as it goes, so a cancelled or crashed
 * run resumes where it stopped: chunks that already carry a vector of the current model are
 * skipped, and chunks of another model are re-embedded (the model changed).
 */
import type { FileId, ProjectId } from '../../core/model';
import type { ChunkStore, Embedder, FileStore, TextChunk } from '../../core/ports';
import type { ChunkEmbeddingProgress } from './embedding.api';

export const EMBED_BATCH_SIZE = 16;
/**
 * The store rewrites a file's chunks as a whole, so a large file is saved every 5% rather than
 * after every batch: at most twenty rewrites per file, and at most 5% lost to a cancel.
 */
export const SAVE_EVERY_FRACTION = 0.05;


export function needsEmbedding(chunk: TextChunk, modelId: string): boolean {
  return chunk.embedding === null || chunk.embeddingModel !== modelId;
}

export async function embedFileChunks(
  fileId: FileId,
  embedder: Embedder,
  chunks: ChunkStore,
  onProgress: (progress: ChunkEmbeddingProgress) => void,
  signal: AbortSignal,
): Promise<{ embedded: number; total: number }> {
  const working = await chunks.listByFile(fileId);
  const total = working.length;
  const pending = working.filter((chunk) => needsEmbedding(chunk, embedder.modelId));
  let embedded = total - pending.length;
  onProgress({ fileId, embedded, total });
  const saveEvery = Math.max(EMBED_BATCH_SIZE, Math.ceil(total * SAVE_EVERY_FRACTION));
  let unsaved = 0;
  for (let start = 0; start < pending.length; start += EMBED_BATCH_SIZE) {
    signal.throwIfAborted();
    const batch = pending.slice(start, start + EMBED_BATCH_SIZE);
    const vectors = await embedder.embed(
      batch.map((chunk) => chunk.text),
      'passage',
      signal,
    );
    signal.throwIfAborted();
    batch.forEach((chunk, i) => {
      chunk.embedding = vectors[i] ?? null;
      chunk.embeddingModel = vectors[i] === undefined ? null : embedder.modelId;
    });
    embedded += batch.length;
    unsaved += batch.length;
    if (unsaved >= saveEvery || start + EMBED_BATCH_SIZE >= pending.length) {
      await chunks.replaceForFile(fileId, working);
      unsaved = 0;
    }
    onProgress({ fileId, embedded, total });
  }
  return { embedded, total };
}

export async function embedProjectChunks(
  projectId: ProjectId,
  embedder: Embedder,
  stores: { files: FileStore; chunks: ChunkStore },
  onProgress: (progress: ChunkEmbeddingProgress) => void,
  signal: AbortSignal,
): Promise<{ embedded: number; total: number }> {
  const files = (await stores.files.listInfoByProject(projectId)).filter(
    (file) => file.status === 'ready',
  );
  let embedded = 0;
  let total = 0;
  for (const file of files) {
    const result = await embedFileChunks(file.id, embedder, stores.chunks, onProgress, signal);
    embedded += result.embedded;
    total += result.total;
  }
  return { embedded, total };
}
