/**
 * One file's way into a project: hash → (duplicate?) → extract → count tokens → chunk → save.
 * Embedding follows in the embedding worker (embedFile) once the chunks are saved. Files that
 * cannot be read are kept and marked (`no_text`, `error`) so the context engine can say so;
 * unsupported or oversized files are refused before anything is stored. A storage failure (a
 * full disk) is not the file's fault: it leaves nothing behind and reaches the caller as thrown.
 */
import { asFileId, type FileId, type FileStatus, type ProjectId } from '../../core/model';
import type { IngestOutcome, IngestProgress, IngestStage } from './ingest.api';
import type {
  ChunkStore,
  Clock,
  FileStore,
  Ids,
  StoredFile,
  TextChunk,
  TokenCounter,
} from '../../core/ports';
import { chunkTextInSteps, formatChunkLocation } from '../../core/rag';
import { isStorageError } from '../../storage';
import { countTokensInSteps, estimateOpenAiImageTokens } from '../../core/tokens';
import { showFileName } from '../../util/file-name';
import { chunkKindOf, detectFileType } from './detect-file-type';
import { describeEmptyFile, extractFile, MAX_FILE_BYTES } from './extract-file';
import {
  IngestError,
  isIngestError,
  throwIfCancelled,
} from './ingest-errors';

export interface IngestFileRequest {
  key: string;
  projectId: ProjectId | null;
  name: string;
  mimeType: string;
  blob: Blob;
  /**
   * When the file was handed in: its creation time. Files handed in one after the other get
   * increasing times, so a project lists a batch in the order it was picked, not in the order
   * its files happened to finish hashing side by side.
   */
  addedAt: number;
}

export interface IngestDeps {
  files: Pick<FileStore, 'put' | 'findByHash' | 'delete'>;
  chunks: Pick<ChunkStore, 'replaceForFile'>;
  tokens: TokenCounter;
  clock: Clock;
  ids: Ids;
}

const STAGE_FRACTION: Record<IngestStage, number> = {
  hash: 0.05,
  extract: 0.15,
  count: 0.6,
  chunk: 0.75,
  done: 1,
  failed: 1,
};

/** The bar's position `done` (0–1) of the way through a stage. */
function between(stage: IngestStage, next: IngestStage, done: number): number {
  const from = STAGE_FRACTION[stage];
  return from + (STAGE_FRACTION[next] - from) * done;
}

/** How long counting or chunking runs before it pauses for other files, progress and cancel. */
const STEP_MS = 50;

/**
 * Runs a long synchronous stage (counting, chunking) step by step: every STEP_MS it reports how
 * far it got and gives the worker back to the other files and to incoming messages (a cancel
 * arrives that way), then stops if this file was cancelled.
 */
async function runInSteps<T>(
  steps: Generator<number, T>,
  onFraction: (done: number) => void,
  signal: AbortSignal,
): Promise<T> {
  let pausedAt = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - pausedAt >= STEP_MS) {
      onFraction(step.value);
      await new Promise((resolve) => setTimeout(resolve, 0));
      throwIfCancelled(signal);
      pausedAt = performance.now();
    }
  }
}

export async function hashBytes(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

export async function ingestFile(
  request: IngestFileRequest,
  deps: IngestDeps,
  onProgress: (progress: IngestProgress) => void,
  signal: AbortSignal,
): Promise<IngestOutcome> {
  const report = (stage: IngestStage, fileId?: FileId, fraction = STAGE_FRACTION[stage]) =>
    onProgress({
      key: request.key,
      name: request.name,
      stage,
      fraction,
      ...(fileId ? { fileId } : {}),
    });
  if (request.blob.size > MAX_FILE_BYTES) {
    report('failed');
    return {
      kind: 'rejected',
      error: {
        code: 'too_large',
        message: `"${showFileName(request.name)}" is larger than the ${MAX_FILE_BYTES / 1024 / 1024} MB limit.`,
      },
    };
  }
  if (detectFileType(request.name, request.mimeType) === null) {
    report('failed');
    return {
      kind: 'rejected',
      error: {
        code: 'unsupported_type',
        message: `"${showFileName(request.name)}" is not a supported type (${request.mimeType || 'unknown type'}).`,
      },
    };
  }
  if (request.blob.size === 0) {
    report('failed');
    return {
      kind: 'rejected',
      error: { code: 'empty_file', message: describeEmptyFile(request.name) },
    };
  }
  if (signal.aborted) return { kind: 'cancelled' };
  report('hash');
  const bytes = new Uint8Array(await request.blob.arrayBuffer());
  const hash = await hashBytes(bytes);
  const duplicate = (await deps.files.findByHash(hash)).find(
    (file) => file.projectId === request.projectId,
  );
  if (duplicate !== undefined) {
    report('done', duplicate.id);
    return { kind: 'duplicate', fileId: duplicate.id, name: duplicate.name };
  }
  // A file handed in with others may carry a creation time a few milliseconds ahead of the
  // clock (see addedAt): it is never changed before it was created.
  const stamp = (): number => Math.max(deps.clock.now(), request.addedAt);
  const file: StoredFile = {
    id: asFileId(deps.ids.newId()),
    projectId: request.projectId,
    name: request.name,
    mimeType: request.mimeType || 'application/octet-stream',
    sizeBytes: bytes.byteLength,
    hash,
    blob: request.blob,
    status: 'processing',
    tokenCount: 0,
    createdAt: request.addedAt,
    updatedAt: stamp(),
  };
  await deps.files.put(file);
  try {
    report('extract', file.id);
    const { type, extracted } = await extractFile(
      { name: request.name, mimeType: request.mimeType, bytes },
      signal,
      // Page by page for PDFs: the extract stage fills the bar up to where counting starts.
      (done) => report('extract', file.id, between('extract', 'count', done)),
    );
    if (extracted.kind === 'image') {
      const tokenCount = estimateOpenAiImageTokens(extracted);
      await deps.files.put({ ...file, status: 'ready', tokenCount, updatedAt: stamp() });
      report('done', file.id);
      return {
        kind: 'stored',
        fileId: file.id,
        status: 'ready',
        tokenCount,
        chunkCount: 0,
        image: { width: extracted.width, height: extracted.height },
      };
    }
    report('count', file.id);
    const countTokens = (text: string) => deps.tokens.count(text);
    const tokenCount = await runInSteps(
      countTokensInSteps(extracted.text, countTokens),
      (done) => report('count', file.id, between('count', 'chunk', done)),
      signal,
    );
    throwIfCancelled(signal);
    report('chunk', file.id);
    const pieces = await runInSteps(
      chunkTextInSteps(
        {
          text: extracted.text,
          kind: chunkKindOf(type),
          ...(extracted.pageMap ? { pageMap: extracted.pageMap } : {}),
        },
        countTokens,
      ),
      (done) => report('chunk', file.id, between('chunk', 'done', done)),
      signal,
    );
    const chunks: TextChunk[] = pieces.map((piece) => ({
      id: `${file.id}:${piece.ordinal}`,
      fileId: file.id,
      projectId: request.projectId,
      ordinal: piece.ordinal,
      text: piece.text,
      tokenCount: piece.tokenCount,
      location: formatChunkLocation(piece),
      embedding: null,
      embeddingModel: null,
    }));
    throwIfCancelled(signal);
    await deps.chunks.replaceForFile(file.id, chunks);
    await deps.files.put({
      ...file,
      status: 'ready',
      text: extracted.text,
      tokenCount,
      ...(extracted.pageMap ? { pageMap: extracted.pageMap } : {}),
      updatedAt: stamp(),
    });
    // A cancel that came while the passages were stored still stops the file: the person saw
    // it working when they cancelled, so it is taken out again.
    throwIfCancelled(signal);
    report('done', file.id);
    return {
      kind: 'stored',
      fileId: file.id,
      status: 'ready',
      tokenCount,
      chunkCount: chunks.length,
    };
  } catch (error) {
    if (signal.aborted || (isIngestError(error) && error.code === 'cancelled')) {
      await deps.files.delete(file.id);
      report('failed');
      return { kind: 'cancelled' };
    }
    if (isStorageError(error)) {
      // The file is fine, the storage is not (full, read-only): keep no half-stored copy, whose
      // blob would take the space the person has to free, and let the caller show why.
      await deps.files.delete(file.id).catch(() => undefined);
      report('failed');
      throw error;
    }
    const ingestError = isIngestError(error)
      ? error
      : new IngestError('broken_file', error instanceof Error ? error.message : String(error));
    if (ingestError.code === 'empty_file') {
      // Only a byte-order mark or blank lines: nothing to keep, as with a file of no bytes.
      await deps.files.delete(file.id);
      report('failed');
      return { kind: 'rejected', error: { code: ingestError.code, message: ingestError.message } };
    }
    const status: FileStatus = ingestError.code === 'no_text' ? 'no_text' : 'error';
    await deps.files.put({
      ...file,
      status,
      error: ingestError.message,
      updatedAt: stamp(),
    });
    report('failed', file.id);
    return {
      kind: 'stored',
      fileId: file.id,
      status,
      tokenCount: 0,
      chunkCount: 0,
      error: { code: ingestError.code, message: ingestError.message },
    };
  }
}
