/**
 * Importing a backup: the file is read as a stream, every row checked against its table's
 * schema as it arrives, and written in batches inside one transaction that spans the whole
 * file. A bad row, a file cut short, a cycle of parent links, a cancel or a full disk throws
 * inside that transaction, so IndexedDB rolls every batch back and the data stays as it was.
 * A good file merges into what is already here, the newer `updatedAt` winning for rows that
 * exist on both sides. Memory holds one batch of rows and the imported messages' parent links.
 */
import type { Transaction } from 'dexie';
import type { BackupImportReport, BackupWorkOptions } from '../../core/ports';
import type { CarrelDb } from '../db';
import { guardStorage } from '../guard';
import { describeCycle, findImportedParentCycle } from '../message-lines';
import type { BackupRecord, BackupTable } from './backup-format';
import { invalidBackup, readBackupRecords, type ReadBackup } from './read-backup';
import { createRowImporter, measureRecord, type BackupTables } from './row-importer';

export { MAX_BACKUP_BLOB_BASE64_CHARS, MAX_BACKUP_STRING_CHARS } from './read-backup';

function bindTables(transaction: Transaction): BackupTables {
  const bind = <Table extends BackupTable>(name: Table) =>
    transaction.table(name) as BackupTables[Table];
  return {
    sessions: bind('sessions'),
    messages: bind('messages'),
    projects: bind('projects'),
    files: bind('files'),
    chunks: bind('chunks'),
    agents: bind('agents'),
    providers: bind('providers'),
    settings: bind('settings'),
    usage: bind('usage'),
    prompts: bind('prompts'),
  };
}

/**
 * Waits for work that is not an IndexedDB request (reading the file) without letting the
 * transaction commit: IndexedDB commits a transaction that has no request pending, so a
 * cheap read is kept in flight until the work is done.
 */
async function keepAlive<T>(tables: BackupTables, work: Promise<T>): Promise<T> {
  let isDone = false;
  const settled = work.finally(() => {
    isDone = true;
  });
  // A rejection is handled where `settled` is awaited below.
  settled.catch(() => undefined);
  while (!isDone) await tables.settings.get(KEEP_ALIVE_KEY);
  return settled;
}

/** A key no setting has: the keep-alive reads find nothing, cheaply. */
const KEEP_ALIVE_KEY = '\u0000keep-alive';

/** Rows read from the file between two waits for it, unless they hold more base64 than this. */
const READ_GROUP_ROWS = 256;
const READ_GROUP_CHARS = 16_000_000;

/** The next rows of the file; an empty group at its end. */
async function takeRecords(records: ReadBackup['records']): Promise<BackupRecord[]> {
  const group: BackupRecord[] = [];
  let chars = 0;
  while (group.length < READ_GROUP_ROWS && chars < READ_GROUP_CHARS) {
    const next = await records.next();
    if (next.done === true) break;
    group.push(next.value);
    chars += measureRecord(next.value);
  }
  return group;
}

export async function importBackup(
  db: CarrelDb,
  file: Blob,
  options: BackupWorkOptions = {},
): Promise<BackupImportReport> {
  const { signal } = options;
  try {
    const backup = await readBackupRecords(file, options);
    return await guardStorage(db, () =>
      db.transaction('rw', db.tables, async (transaction) => {
        // Tables bound to this transaction: every write goes into it (or fails with it), never
        // into a transaction of its own, however the awaits in between were scheduled.
        const tables = bindTables(transaction);
        const importer = createRowImporter(tables, backup.header);
        const links = new Map<string, string | null>();
        for (;;) {
          const group = await keepAlive(tables, takeRecords(backup.records));
          signal?.throwIfAborted();
          for (const record of group) {
            if (record.table === 'messages') links.set(record.row.id, record.row.parentId);
            if (importer.isFullFor(record)) await importer.flush();
            importer.add(record);
          }
          if (group.length === 0) break;
        }
        const cycle = await findImportedParentCycle(tables, links);
        if (cycle !== undefined) throw invalidBackup(describeCycle(cycle));
        return importer.finish();
      }),
    );
  } catch (error) {
    // A cancel is not a storage failure: the caller sees the signal's reason, as with fetch.
    if (signal?.aborted === true) throw signal.reason;
    throw error;
  }
}
