/**
 * Importing a backup, all or nothing, with memory bounded whatever the file's size. The file is
 * read as a stream twice. The first pass checks every row against its table's schema and writes
 * nothing: a bad file is refused whole, naming its first problems. The second pass writes in
 * batches, one transaction each, under the undo journal of `import-journal.ts`: parent links
 * that form a cycle (found batch by batch, through the rows already written), a cancel, a full
 * disk or any other failure undo what the batches wrote, and an import cut short by a closed tab
 * is undone at the next start. A good file merges into what is already here, the newer
 * `updatedAt` winning for rows that exist on both sides. Memory holds one batch of rows, the
 * summaries and the ids they refer to.
 */
import type { Transaction } from 'dexie';
import type { BackupImportReport, BackupWorkOptions, Clock } from '../../core/ports';
import type { CarrelDb, ImportUndoRow } from '../db';
import { StorageError } from '../errors';
import { guardStorage } from '../guard';
import type { BackupRecord, BackupRow } from './backup-format';
import {
  beginImport,
  commitImport,
  createUndoRecorder,
  journaledTables,
  JOURNALED_TABLES,
  undoImport,
  undoUnfinishedImports,
  withImportLock,
} from './import-journal';
import { createProgressReporter } from './progress';
import { readBackupRecords, type ReadBackup } from './read-backup';
import { createRowImporter, type BackupTables, type RowBatch } from './row-importer';

export { MAX_BACKUP_BLOB_BASE64_CHARS, MAX_BACKUP_STRING_CHARS } from './read-backup';

/** What an import needs besides the file: the time it starts, a fresh id, Web Locks. */
export interface ImportContext {
  clock: Pick<Clock, 'now'>;
  newId: () => string;
  /** Absent where there are no Web Locks (one context, nothing to coordinate). */
  locks: LockManager | undefined;
}

/** Sessions given a new version per transaction at the end. */
const VERSION_BATCH_ROWS = 500;

function bindTables(transaction: Transaction): BackupTables {
  return Object.fromEntries(
    [...JOURNALED_TABLES, 'searchSnapshots'].map((name) => [name, transaction.table(name)]),
  ) as unknown as BackupTables;
}

type SummaryRow = BackupRow<'summaries'>;

/** Rows checked between two yields to the event loop. */
const ROWS_PER_YIELD = 256;

/**
 * The file's rows with the cancel checked before each, yielding to the event loop every few
 * hundred: reading a slice of the file and checking its rows is all microtasks, and the page
 * must keep painting the progress (and hear the Cancel) meanwhile.
 */
async function* eachRecord(
  records: ReadBackup['records'],
  signal: AbortSignal | undefined,
): AsyncGenerator<BackupRecord> {
  let count = 0;
  for await (const record of records) {
    signal?.throwIfAborted();
    yield record;
    count += 1;
    if (count % ROWS_PER_YIELD === 0) await new Promise<void>((resolve) => setTimeout(resolve, 0));
  }
}

/**
 * The first pass: every row is checked as it streams by, and a bad one throws, naming it.
 * Summaries are kept (they are few, and come last): whether one can be imported depends on
 * the chats and messages the whole file holds.
 */
async function checkBackup(
  file: Blob,
  signal: AbortSignal | undefined,
  onBytes: (bytes: number) => void,
): Promise<SummaryRow[]> {
  const backup = await readBackupRecords(file, { onProgress: ({ done }) => onBytes(done) });
  const summaries: SummaryRow[] = [];
  for await (const record of eachRecord(backup.records, signal)) {
    if (record.table === 'summaries') summaries.push(record.row);
  }
  return summaries;
}

/**
 * Which chats and messages the backup holds, among those its summaries need: only those are
 * remembered, so memory does not grow with the number of messages.
 */
function createSummaryCheck(summaries: readonly SummaryRow[]) {
  const neededSessions = new Set(summaries.map((summary) => summary.sessionId as string));
  const neededMessages = new Set(
    summaries.flatMap((summary) => [summary.lastMessageId as string, ...summary.coveredIds]),
  );
  const sessions = new Set<string>();
  const messageSessions = new Map<string, string>();
  return {
    see(record: BackupRecord): void {
      if (record.table === 'sessions' && neededSessions.has(record.row.id))
        sessions.add(record.row.id);
      if (record.table === 'messages' && neededMessages.has(record.row.id))
        messageSessions.set(record.row.id, record.row.sessionId);
    },
    /** Why a summary cannot come along, or undefined when its chat and messages are all here. */
    whyLeftOut(summary: SummaryRow): string | undefined {
      if (!sessions.has(summary.sessionId))
        return `summary "${summary.id}": its chat "${summary.sessionId}" is not in the backup.`;
      const missing = [summary.lastMessageId, ...summary.coveredIds].find(
        (id) => messageSessions.get(id) !== summary.sessionId,
      );
      return missing === undefined
        ? undefined
        : `summary "${summary.id}": message "${missing}" it stands for is not in the backup's chat.`;
    },
  };
}

/** The second pass: the rows again, written batch by batch under the journal of `importId`. */
async function writeBackup(
  db: CarrelDb,
  file: Blob,
  importId: string,
  summaries: readonly SummaryRow[],
  signal: AbortSignal | undefined,
  onBytes: (bytes: number) => void,
): Promise<BackupImportReport> {
  const backup = await readBackupRecords(file, { onProgress: ({ done }) => onBytes(done) });
  const importer = createRowImporter(backup.header);
  const undo = createUndoRecorder(importId);
  const inTransaction = (work: (tables: BackupTables) => Promise<void>) =>
    db.transaction('rw', journaledTables(db), async (transaction) => {
      // Tables bound to this transaction: the batch and its undo records commit together,
      // however the awaits in between were scheduled.
      await work(bindTables(transaction));
      await undo.flush(transaction.table<ImportUndoRow, number>('importUndo'));
    });
  const write = async (batch: RowBatch) => {
    if (batch.length === 0) return;
    signal?.throwIfAborted();
    await inTransaction((tables) => importer.write(tables, undo, batch));
  };
  const add = async (record: BackupRecord) => {
    if (importer.isFullFor(record)) await write(importer.take());
    importer.add(record);
  };
  const summaryCheck = createSummaryCheck(summaries);
  for await (const record of eachRecord(backup.records, signal)) {
    // Summaries go last, once the whole file has said which chats and messages it holds.
    if (record.table === 'summaries') continue;
    summaryCheck.see(record);
    await add(record);
  }
  const summariesLeftOut: string[] = [];
  for (const summary of summaries) {
    const reason = summaryCheck.whyLeftOut(summary);
    if (reason === undefined) await add({ table: 'summaries', row: summary });
    else summariesLeftOut.push(reason);
  }
  await write(importer.take());
  const toBump = importer.sessionsToBump();
  for (let start = 0; start < toBump.length; start += VERSION_BATCH_ROWS) {
    signal?.throwIfAborted();
    const ids = toBump.slice(start, start + VERSION_BATCH_ROWS);
    await inTransaction((tables) => importer.bumpVersions(tables, undo, ids));
  }
  return { ...importer.report, summariesLeftOut };
}

export async function importBackup(
  db: CarrelDb,
  file: Blob,
  options: BackupWorkOptions,
  context: ImportContext,
): Promise<BackupImportReport> {
  const { signal } = options;
  const progress = createProgressReporter(file.size, options.onProgress);
  // Each pass is half the bar; the last step waits for the commit.
  const half = file.size / 2;
  try {
    const summaries = await guardStorage(db, () =>
      checkBackup(file, signal, (bytes) => progress.moveTo(Math.floor(bytes / 2))),
    );
    signal?.throwIfAborted();
    const outcome = await withImportLock(context.locks, () =>
      guardStorage(db, async () => {
        // What an earlier import in this browser left unfinished is undone before this starts.
        await undoUnfinishedImports(db);
        const importId = context.newId();
        await beginImport(db, importId, context.clock.now());
        try {
          const report = await writeBackup(db, file, importId, summaries, signal, (bytes) =>
            progress.moveTo(Math.min(file.size - 1, Math.floor(half + bytes / 2))),
          );
          // A cancel that came during the last batch still undoes it: nothing is committed yet.
          signal?.throwIfAborted();
          await commitImport(db, importId);
          return report;
        } catch (error) {
          await undoAfterFailure(db, importId);
          throw error;
        }
      }),
    );
    if (outcome.kind === 'busy')
      throw new StorageError(
        'blocked',
        'Another Carrel tab is importing a backup. Try again once it has finished; nothing was changed.',
      );
    progress.finish();
    return outcome.value;
  } catch (error) {
    // A cancel is not a storage failure: the caller sees the signal's reason, as with fetch.
    if (signal?.aborted === true) throw signal.reason;
    throw error;
  }
}

/**
 * Undoes a failed import at once. If even that fails (the disk went away, the connection
 * closed), the journal stays and the next start undoes it; the first error is what is reported.
 */
async function undoAfterFailure(db: CarrelDb, importId: string): Promise<void> {
  try {
    if (!db.isOpen()) await db.open();
    await undoImport(db, importId);
  } catch (undoError) {
    console.error(
      'Carrel could not undo the failed import yet; it will at the next start.',
      undoError,
    );
  }
}
