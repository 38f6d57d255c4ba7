import type { Backup, Clock } from '../../core/ports';
import type { CarrelDb } from '../db';
import { exportBackup } from './export-backup';
import { importBackup } from './import-backup';
import { defaultLocks } from './import-journal';

/**
 * The Backup port over this database: export to a file, import from one, both streamed. Imports
 * coordinate across tabs through `locks` (the browser's Web Locks by default).
 */
export function createBackupService(
  db: CarrelDb,
  clock: Clock,
  locks: LockManager | undefined = defaultLocks(),
): Backup {
  return {
    exportBackup: (scope, options) => exportBackup(db, scope, clock, options),
    importBackup: (file, options = {}) =>
      importBackup(db, file, options, { clock, locks, newId: () => crypto.randomUUID() }),
  };
}
