import { liveQuery } from 'dexie';
import { toStorageError, type StorageError } from './errors';

/**
 * Keeps a value current: runs `querier` now and again whenever a table it read changes, in this
 * tab or another. Lets `src/state/` hold live lists without importing Dexie. Returns the
 * unsubscribe function.
 */
export function observe<T>(
  querier: () => Promise<T>,
  onValue: (value: T) => void,
  onError: (error: StorageError) => void,
): () => void {
  const subscription = liveQuery(querier).subscribe({
    next: onValue,
    error: (error: unknown) => onError(toStorageError(error)),
  });
  return () => subscription.unsubscribe();
}
