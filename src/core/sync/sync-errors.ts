/** Why sync stopped or refused something, with a sentence a person can act on. */
export type SyncErrorCode =
  | 'invalid_config'
  | 'wrong_passphrase'
  | 'bad_key_info'
  | 'unauthorized'
  | 'offline'
  | 'no_database'
  | 'server'
  | 'tampered'
  | 'not_connected'
  | 'import_underway'
  | 'missing_bytes'
  | 'stopped';

export class SyncError extends Error {
  override readonly name = 'SyncError';
  constructor(
    readonly code: SyncErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function isSyncError(error: unknown): error is SyncError {
  return error instanceof SyncError;
}
