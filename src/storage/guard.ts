import type { Dexie } from 'dexie';
import { toStorageError } from './errors';

/**
 * Runs one store operation and turns whatever it throws into a StorageError. Work passed here
 * must only touch the database: a network await inside a transaction would let it auto-commit
 * half-way.
 */
export async function guardStorage<T>(db: Dexie, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const storageError = toStorageError(error);
    if (storageError.code === 'quota_exceeded' || storageError.code === 'read_only') {
      await reopenIfClosed(db);
    }
    throw storageError;
  }
}

/**
 * Some browsers close the connection after a quota abort. Reopening keeps the app usable once
 * space is freed; the original error is still what the caller sees.
 */
async function reopenIfClosed(db: Dexie): Promise<void> {
  if (db.isOpen()) return;
  try {
    await db.open();
  } catch (reopenError) {
    console.error('Carrel could not reopen its database after a storage error.', reopenError);
  }
}
