import type { IngestErrorCode } from './ingest.api';

export type { IngestErrorCode };

export class IngestError extends Error {
  constructor(
    readonly code: IngestErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'IngestError';
  }
}

export function isIngestError(error: unknown): error is IngestError {
  return error instanceof IngestError;
}

export function throwIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw new IngestError('cancelled', 'Ingestion was cancelled.');
}
