/**
 * The ingest worker's contract. Files cross as Blobs (structured clone, no copy of the bytes
 * on the UI thread); progress arrives per file through a proxied callback.
 */
import type { FileId, FileStatus } from '../../core/model';
import type { StoredFile } from '../../core/ports';
import type { CallKinds } from '../protocol';

/** Why a file could not be read; crosses the worker boundary as a plain `{code, message}`. */
export type IngestErrorCode =
  | 'unsupported_type'
  | 'too_large'
  | 'empty_file'
  | 'encrypted_pdf'
  | 'broken_file'
  | 'no_text'
  | 'cancelled';

export type IngestStage = 'hash' | 'extract' | 'count' | 'chunk' | 'done' | 'failed';

export interface IngestProgress {
  /** The client's key for this file (its position in the batch). */
  key: string;
  name: string;
  stage: IngestStage;
  /** 0–1 over the whole ingest of this file. */
  fraction: number;
  fileId?: FileId;
}

export type IngestOutcome =
  | {
      kind: 'stored';
      fileId: FileId;
      status: FileStatus;
      tokenCount: number;
      chunkCount: number;
      image?: { width: number; height: number };
      error?: { code: IngestErrorCode; message: string };
      /** The file itself, when the caller keeps it (a temporary chat's attachment): nothing was stored. */
      file?: StoredFile;
    }
  | { kind: 'duplicate'; fileId: FileId; name: string }
  | { kind: 'rejected'; error: { code: IngestErrorCode; message: string } }
  | { kind: 'cancelled' };

export interface IngestFileInput {
  name: string;
  mimeType: string;
  blob: Blob;
}

export type IngestProgressListener = (progress: IngestProgress) => void;

export interface IngestWorkerApi {
  /**
   * Ingests one file into a project (or as a chat attachment when projectId is null). Files
   * sent together are read side by side, a few at a time, each pausing now and then while it
   * counts and chunks, so a slow or huge file does not hold back the others. `key` comes back
   * in every progress event. `cancel(jobId)` stops this file alone, at its next pause.
   * `isTemporary`: an attachment of a temporary chat, read in memory and handed back whole in
   * the outcome (`file`), never written to the database.
   */
  ingestFile(
    jobId: string,
    projectId: string | null,
    file: IngestFileInput & { key: string },
    onProgress: IngestProgressListener,
    isTemporary?: boolean,
  ): Promise<IngestOutcome>;
  cancel(jobId: string): Promise<void>;
}

/** Every ingest call rejects when the worker could not set up (see `CallKinds`). */
export const INGEST_CALLS: CallKinds<IngestWorkerApi> = { ingestFile: 'throws', cancel: 'throws' };
