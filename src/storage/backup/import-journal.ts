/**
 * The undo journal of a backup import. An import writes in many small transactions, so that
 * neither IndexedDB nor the page holds the whole file's writes at once; this journal is what
 * keeps it all or nothing. Before its first batch an import adds its row to `imports`; each batch
 * records in `importUndo`, in the same transaction as its writes, what every row it writes or
 * deletes held before (null where there was none). Deleting the `imports` row is the commit.
 * Until then, undoing applies the oldest record of each row, so the data comes back exactly as
 * it was: on a failure or a cancel at once, after a closed tab or a crash at the next start
 * (`recoverInterruptedImports`). A Web Lock held for the whole import keeps a second tab from
 * importing meanwhile, or from undoing an import that is still running.
 */
import type { Table } from 'dexie';
import type { CarrelDb, ImportUndoRow } from '../db';
import { dropAllSnapshots } from '../search-block-revisions';
import { BACKUP_TABLES } from './backup-format';

/** The lock an import holds from its first write to its commit or undo. */
export const IMPORT_LOCK_NAME = 'carrel-backup-import';

/** Journal records undone per transaction: pre-images can be whole messages or files. */
const UNDO_BATCH_ROWS = 200;

/**
 * The tables an import writes: the backed-up ones, and beside them a file's text (stored apart
 * from its row) and its search block (dropped when its chunks change).
 */
export const JOURNALED_TABLES = [...BACKUP_TABLES, 'fileTexts', 'searchBlocks'] as const;
export type JournaledTable = (typeof JOURNALED_TABLES)[number];

/**
 * The tables an import writes, plus the journal, plus the projects' search snapshots: an import
 * drops those of projects whose chunks it writes, and an undo leaves them dropped (they are
 * joined again from the blocks it puts back), so they are not journaled.
 */
export function journaledTables(db: CarrelDb): Table[] {
  return [...JOURNALED_TABLES.map((table) => db.table(table)), db.importUndo, db.searchSnapshots];
}

/** Settings are keyed by `key`, file texts and search blocks by `fileId`, the rest by `id`. */
export function keyOf(table: JournaledTable, row: object): string {
  const field =
    table === 'settings'
      ? 'key'
      : table === 'fileTexts' || table === 'searchBlocks'
        ? 'fileId'
        : 'id';
  return String((row as Record<string, unknown>)[field]);
}

/** One batch's undo records, written with the batch (call `flush` before its transaction ends). */
export interface UndoRecorder {
  /** `before` is the row `key` holds now, before this batch changes it; undefined for none. */
  record(table: JournaledTable, key: string, before: unknown): void;
  flush(undo: Table<ImportUndoRow, number>): Promise<void>;
}

export function createUndoRecorder(importId: string): UndoRecorder {
  let records: ImportUndoRow[] = [];
  return {
    record(table, key, before) {
      if (before !== undefined && before !== null) {
        records.push({ importId, table, key, before });
        return;
      }
      // Rows created one after another in a table share a record; the order of the records
      // stays the order of the writes, which the undo relies on.
      const last = records.at(-1);
      if (last?.createdKeys !== undefined && last.table === table) last.createdKeys.push(key);
      else records.push({ importId, table, key: '', before: null, createdKeys: [key] });
    },
    async flush(undo) {
      const pending = records;
      records = [];
      if (pending.length > 0) await undo.bulkAdd(pending);
    },
  };
}

/** Starts an import's journal: from here until `commitImport`, recovery would undo it. */
export async function beginImport(
  db: CarrelDb,
  importId: string,
  startedAt: number,
): Promise<void> {
  await db.imports.add({ id: importId, startedAt });
}

/**
 * The commit: the import's row goes, and its records with it (they undo nothing any more), in
 * one transaction. The records of one import are one unbroken run of the journal's keys (the
 * import lock lets no other import write between them), deleted as one key range: deleting
 * them one by one took minutes for a large backup.
 */
export async function commitImport(db: CarrelDb, importId: string): Promise<void> {
  await db.transaction('rw', db.imports, db.importUndo, async () => {
    await db.imports.delete(importId);
    const records = db.importUndo.where('importId').equals(importId);
    const first = (await records.clone().limit(1).primaryKeys())[0];
    const last = (await records.clone().reverse().limit(1).primaryKeys())[0];
    if (first === undefined || last === undefined) return;
    if ((await records.count()) === last - first + 1)
      await db.importUndo.where(':id').between(first, last, true, true).delete();
    else await records.delete();
  });
}

/**
 * Puts back what the import changed, newest records first, a batch per transaction; each
 * batch deletes the records it applied, so an undo cut short resumes where it stopped.
 */
export async function undoImport(db: CarrelDb, importId: string): Promise<void> {
  for (;;) {
    const isDone = await db.transaction('rw', journaledTables(db), async () => {
      const records = await db.importUndo
        .where('importId')
        .equals(importId)
        .reverse()
        .limit(UNDO_BATCH_ROWS)
        .toArray();
      if (records.length === 0) return true;
      // Newest first: a row written twice keeps its oldest record, the state before the import.
      const oldest = new Map<string, { table: string; key: string; before: unknown }>();
      for (const record of records) {
        const keys = record.createdKeys ?? [record.key];
        for (const key of keys)
          oldest.set(`${record.table}\u0000${key}`, {
            table: record.table,
            key,
            before: record.before,
          });
      }
      const byTable = new Map<string, { deleted: string[]; restored: unknown[] }>();
      for (const record of oldest.values()) {
        let changes = byTable.get(record.table);
        if (changes === undefined) {
          changes = { deleted: [], restored: [] };
          byTable.set(record.table, changes);
        }
        if (record.before === null) changes.deleted.push(record.key);
        else changes.restored.push(record.before);
      }
      for (const [table, changes] of byTable) {
        await db.table(table).bulkDelete(changes.deleted);
        await db.table(table).bulkPut(changes.restored);
      }
      // Chunks put back make the projects' joined snapshots stale, including one a search
      // stored while the import was under way; which project a created chunk was in is not
      // recorded, so every project's is dropped.
      if (byTable.has('chunks') || byTable.has('searchBlocks')) await dropAllSnapshots(db);
      await db.importUndo.bulkDelete(records.map((record) => record.seq as number));
      return false;
    });
    if (isDone) break;
  }
  await db.imports.delete(importId);
}

/**
 * Undoes every import that never committed. Call it holding the import lock (an import in
 * another tab holds it while it writes).
 */
export async function undoUnfinishedImports(db: CarrelDb): Promise<void> {
  const unfinished = await db.imports.toCollection().primaryKeys();
  for (const importId of unfinished) await undoImport(db, importId);
}

/** The browser's Web Locks, where it has them (fake-indexeddb tests in Node have none). */
export function defaultLocks(): LockManager | undefined {
  return typeof navigator !== 'undefined' && 'locks' in navigator ? navigator.locks : undefined;
}

/**
 * Runs `work` holding the import lock, or returns `busy` at once when another tab holds it.
 * Without Web Locks there is one context, so `work` simply runs.
 */
export async function withImportLock<T>(
  locks: LockManager | undefined,
  work: () => Promise<T>,
): Promise<{ kind: 'done'; value: T } | { kind: 'busy' }> {
  if (locks === undefined) return { kind: 'done', value: await work() };
  return locks.request(IMPORT_LOCK_NAME, { ifAvailable: true }, async (lock) =>
    lock === null ? { kind: 'busy' as const } : { kind: 'done' as const, value: await work() },
  );
}

/**
 * At start: an import a closed tab or a crash cut short is undone, unless another tab is still
 * running it. Resolves to whether the journal was looked at (false: another tab is importing).
 */
export async function recoverInterruptedImports(
  db: CarrelDb,
  locks: LockManager | undefined = defaultLocks(),
): Promise<boolean> {
  const outcome = await withImportLock(locks, () => undoUnfinishedImports(db));
  return outcome.kind === 'done';
}
