/**
 * What the app needs from the import journal at every start, without the journal's code: that
 * code (and the backup format it names) loads only when an import was cut short.
 */
import type { CarrelDb } from '../db';
import type { StorageError } from '../errors';
import { observe } from '../observe';

/**
 * At start: an import a closed tab or a crash cut short is undone, unless another tab is still
 * running it. Resolves to whether the journal was looked at (false: another tab is importing).
 */
export async function recoverUnfinishedImportsOnStart(db: CarrelDb): Promise<boolean> {
  if ((await db.imports.count()) === 0) return true;
  const { recoverInterruptedImports } = await import('./import-journal');
  return recoverInterruptedImports(db);
}

/**
 * Tells `onChange` whether an import is under way (writing, or being undone) in any tab, now
 * and whenever that changes: rows it writes show as they land, so the app says they may be
 * partial. Returns the unsubscribe function.
 */
export function watchImportUnderway(
  db: CarrelDb,
  onChange: (isUnderway: boolean) => void,
  onError: (error: StorageError) => void,
): () => void {
  return observe(async () => (await db.imports.count()) > 0, onChange, onError);
}
