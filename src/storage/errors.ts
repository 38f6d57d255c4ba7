/**
 * Every storage failure leaves this module as a `StorageError` with a code from one union, so
 * the UI funnel can show a sentence a person can act on and never has to know Dexie's names.
 */
export type StorageErrorCode =
  | 'quota_exceeded'
  | 'read_only'
  | 'version_change'
  | 'blocked'
  | 'not_found'
  | 'invalid_data'
  | 'unknown';

const MESSAGES: Record<StorageErrorCode, string> = {
  quota_exceeded:
    "Your browser's storage for Carrel is full. Nothing already saved was lost, but this change was not saved. Free space by deleting old chats or files, or export a backup.",
  read_only: 'Carrel could not save because the database is read-only right now. Try again.',
  version_change:
    'Carrel was updated in another tab, so this tab closed its database. Reload the page to continue.',
  blocked:
    'Carrel cannot upgrade its database while another tab with an older version is open. Close the other Carrel tabs.',
  not_found: 'The item no longer exists.',
  invalid_data: 'Stored data could not be read because it is not in the expected shape.',
  unknown: 'Carrel could not read or save its data.',
};

export class StorageError extends Error {
  override readonly name = 'StorageError';
  readonly code: StorageErrorCode;

  constructor(
    code: StorageErrorCode,
    message: string = MESSAGES[code],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = code;
  }
}

export function isStorageError(error: unknown): error is StorageError {
  return error instanceof StorageError;
}

/** Dexie errors carry the IndexedDB DOMException as `inner`; bulk errors carry `failures`. */
interface ErrorLike {
  name?: unknown;
  message?: unknown;
  inner?: unknown;
  failures?: unknown;
  failuresByPos?: unknown;
}

function collectErrorNames(error: unknown, depth = 0): string[] {
  if (depth > 5 || typeof error !== 'object' || error === null) return [];
  const like = error as ErrorLike;
  const names = typeof like.name === 'string' ? [like.name] : [];
  names.push(...collectErrorNames(like.inner, depth + 1));
  if (error instanceof Error && error.cause !== undefined) {
    names.push(...collectErrorNames(error.cause, depth + 1));
  }
  const failures = Array.isArray(like.failures)
    ? (like.failures as unknown[])
    : typeof like.failuresByPos === 'object' && like.failuresByPos !== null
      ? Object.values(like.failuresByPos)
      : [];
  for (const failure of failures) names.push(...collectErrorNames(failure, depth + 1));
  return names;
}

/** A StorageError thrown inside a transaction or an upgrade comes back wrapped by Dexie. */
function findStorageError(error: unknown, depth = 0): StorageError | undefined {
  if (error instanceof StorageError) return error;
  if (depth > 5 || typeof error !== 'object' || error === null) return undefined;
  const like = error as ErrorLike;
  return (
    findStorageError(like.inner, depth + 1) ??
    (error instanceof Error ? findStorageError(error.cause, depth + 1) : undefined)
  );
}

/**
 * Maps anything thrown by Dexie or IndexedDB to a StorageError. The most specific cause wins: a
 * QuotaExceededError arriving wrapped in an AbortError is still a full disk, not an abort.
 */
export function toStorageError(error: unknown): StorageError {
  const nested = findStorageError(error);
  if (nested !== undefined) return nested;
  const names = collectErrorNames(error);
  const has = (...candidates: string[]) => candidates.some((name) => names.includes(name));
  const code: StorageErrorCode = has('QuotaExceededError')
    ? 'quota_exceeded'
    : has('ReadOnlyError')
      ? 'read_only'
      : has('VersionChangeError', 'VersionError')
        ? 'version_change'
        : has('BlockedError')
          ? 'blocked'
          : has('NotFoundError')
            ? 'not_found'
            : has(
                  'DataError',
                  'DataCloneError',
                  'ConstraintError',
                  'SchemaError',
                  'InvalidTableError',
                )
              ? 'invalid_data'
              : 'unknown';
  const detail = error instanceof Error && error.message.length > 0 ? ` (${error.message})` : '';
  const message =
    code === 'unknown' || code === 'invalid_data' ? `${MESSAGES[code]}${detail}` : MESSAGES[code];
  return new StorageError(code, message, { cause: error });
}
