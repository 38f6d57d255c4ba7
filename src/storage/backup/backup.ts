import type { Backup, Clock } from '../../core/ports';
import type { CarrelDb } from '../db';
import { exportBackup } from './export-backup';
import { importBackup } from './import-backup';

/** The Backup port over this database: export to a file, import from one, both streamed. */
export function createBackupService(db: CarrelDb, clock: Clock): Backup {
  return {
    exportBackup: (scope, options) => exportBackup(db, scope, clock, options),
    importBackup: (file, options) => importBackup(db, file, options),
  };
}
