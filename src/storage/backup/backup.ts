import type { Backup, Clock } from '../../core/ports';
import type { CarrelDb } from '../db';
import { createBackup, serializeBackup } from './export-backup';
import { importBackup } from './import-backup';

/** The Backup port over this database: export to a JSON file's text, import from one. */
export function createBackupService(db: CarrelDb, clock: Clock): Backup {
  return {
    exportBackup: async (scope, options) =>
      serializeBackup(await createBackup(db, scope, clock, options)),
    importBackup: (text) => importBackup(db, text),
  };
}
