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
   * Ingests files one after another into a project (or as chat attachments when projectId is
   * null). Resolves with one outcome per file, in order; a cancelled job stops at the current
   * file and reports the rest as cancelled.
   */
  ingestFiles(
    jobId: string,
    projectId: string | null,
    files: IngestFileInput[],
    onProgress: IngestProgressListener,
  ): Promise<IngestOutcome[]>;
  cancel(jobId: string): Promise<void>;
}
