/**
 * The ingest worker's contract. Files cross as Blobs (structured clone, no copy of the bytes
 * on the UI thread); progress arrives per file through a proxied callback.
 */
import type { IngestOutcome, IngestProgress } from './ingest-file';

export type { IngestOutcome, IngestProgress };
export type { IngestStage } from './ingest-file';
export type { IngestErrorCode } from './ingest-errors';

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
   */
  ingestFile(
    jobId: string,
    projectId: string | null,
    file: IngestFileInput & { key: string },
    onProgress: IngestProgressListener,
  ): Promise<IngestOutcome>;
  cancel(jobId: string): Promise<void>;
}
