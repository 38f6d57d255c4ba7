/** Why a file could not be read; crosses the worker boundary as a plain `{code, message}`. */
export type IngestErrorCode =
  | 'unsupported_type'
  | 'too_large'
  | 'empty_file'
  | 'encrypted_pdf'
  | 'broken_file'
  | 'no_text'
  | 'cancelled';

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
