/**
 * Writes checked backup rows in batches, each into the transaction the caller opens for it,
 * recording what every write replaces in the import's undo journal. Each table's rule:
 * a row new here is inserted; a row on both sides is replaced when the backup's `updatedAt`
 * is newer and kept otherwise; a backup without keys never blanks a key this device has; a
 * replaced file brings its own chunks; usage records never change once written; a summary is
 * added once and afterwards only takes an undo made on the other side.
 */
import { mergeImportedProvider } from '../../core/model';
import { isSettingKey } from '../../core/model/settings';
import type { BackupImportReport, StoredFile } from '../../core/ports';
import type { CarrelDb, ChunkRow, SessionRow } from '../db';
import type { Table as DexieTable } from 'dexie';
import { toFileRows } from '../file.store';
import { invalidateSearchBlocks } from '../search-block-revisions';
import { describeCycle, findImportedParentCycle, placeImportedRows } from '../message-lines';
import { toMessageRow } from '../message-rows';
import type { BackupRecord, BackupRow, BackupTable } from './backup-format';
import { decodeBase64 } from './base64';
import { keyOf, type JournaledTable, type UndoRecorder } from './import-journal';
import { invalidBackup } from './read-backup';

/** Rows written per batch: large enough for few round trips, small enough for bounded memory. */
const BATCH_ROWS = 500;
/**
 * Characters of bulky content (a file's base64 bytes and text, a chunk's text and vector) per
 * batch, about 3 MB of bytes. A batch of files is held several times over while it is written
 * (the base64 and text strings, the decoded bytes, their Blobs, IndexedDB's copies), so this,
 * not the number of rows, bounds the import's memory where files are large.
 */
const BATCH_CHARS = 4_000_000;
/** A session's messages are placed in one batch unless it has more than this many. */
const MAX_MESSAGE_BATCH_ROWS = 20_000;

type Decision = 'insert' | 'replace' | 'keep';

function decide(
  existing: { updatedAt: number } | undefined,
  incoming: { updatedAt: number },
): Decision {
  if (existing === undefined) return 'insert';
  return incoming.updatedAt > existing.updatedAt ? 'replace' : 'keep';
}

type Batch = { [Table in BackupTable]: { table: Table; rows: BackupRow<Table>[] } }[BackupTable];

/** The characters of a row's bulky parts (blobs, vectors, chunk text), for batch limits. */
const measureRecord = (record: BackupRecord): number =>
  record.table === 'files'
    ? record.row.blobBase64.length + (record.row.text?.length ?? 0)
    : record.table === 'chunks'
      ? (record.row.embeddingBase64?.length ?? 0) + record.row.text.length
      : 0;

/** The tables a backup writes (a file's text and search block apart from it), bound to one batch's transaction. */
export type BackupTables = Pick<CarrelDb, JournaledTable | 'searchSnapshots'>;

/** One batch, as the import hands it to a transaction: rows grouped by table, in file order. */
export type RowBatch = Batch[];

export function createRowImporter(header: { hasApiKeys: boolean }) {
  const report: BackupImportReport = {
    inserted: 0,
    replaced: 0,
    kept: 0,
    providersWithoutKey: [],
    summariesLeftOut: [],
  };
  const count = (decision: Decision) => {
    report[decision === 'insert' ? 'inserted' : decision === 'replace' ? 'replaced' : 'kept'] += 1;
  };
  /** Sessions whose messages changed here must invalidate every cache of their chain. */
  const touchedSessions = new Set<string>();
  /** Sessions written from the backup (new here, or given a fresh version already). */
  const writtenSessions = new Set<string>();
  /** Files this import writes: their chunks come from the backup, the stale ones go. */
  const filesWritten = new Set<string>();
  const backupFileIds = new Set<string>();

  /** Writes `rows` into `table`, recording what each key held (`existing`, by key) first. */
  async function putRecorded<Table extends JournaledTable>(
    tables: BackupTables,
    undo: UndoRecorder,
    table: Table,
    rows: readonly object[],
    existing: ReadonlyMap<string, unknown>,
  ): Promise<void> {
    for (const row of rows) {
      const key = keyOf(table, row);
      undo.record(table, key, existing.get(key));
    }
    await (
      tables[table] as unknown as { bulkPut(rows: readonly object[]): Promise<unknown> }
    ).bulkPut(rows);
  }

  const byKey = <Row extends object>(table: JournaledTable, rows: readonly (Row | undefined)[]) =>
    new Map(rows.flatMap((row) => (row === undefined ? [] : [[keyOf(table, row), row] as const])));

  /** Drops the search blocks of files whose chunks change, recording the blocks as they were. */
  async function invalidateRecorded(
    tables: BackupTables,
    undo: UndoRecorder,
    files: ReadonlyMap<string, string | null>,
  ): Promise<void> {
    if (files.size === 0) return;
    const current = await tables.searchBlocks.bulkGet([...files.keys()]);
    [...files.keys()].forEach((fileId, index) => undo.record('searchBlocks', fileId, current[index]));
    await invalidateSearchBlocks(tables, [...files].map(([fileId, projectId]) => ({ fileId, projectId })));
  }

  const pickNewer = <T extends { updatedAt: number }>(
    rows: readonly T[],
    existing: readonly (T | undefined)[],
  ) =>
    rows.filter((row, index) => {
      const decision = decide(existing[index], row);
      count(decision);
      return decision !== 'keep';
    });

  /** The rows newer than this device's (`existing`, by index), written. */
  const putNewer = <Row extends { updatedAt: number }>(
    tables: BackupTables,
    undo: UndoRecorder,
    table: BackupTable,
    rows: readonly Row[],
    existing: readonly (Row | undefined)[],
  ) => putRecorded(tables, undo, table, pickNewer(rows, existing), byKey(table, existing));

  type Writer<Table extends BackupTable> = (
    tables: BackupTables,
    undo: UndoRecorder,
    rows: BackupRow<Table>[],
  ) => Promise<void>;

  /** Tables whose rows are matched by id and replaced only by a newer one, with nothing else to do. */
  type PlainTable = 'projects' | 'agents' | 'prompts';
  const writeNewerById =
    <Table extends PlainTable>(table: Table): Writer<Table> =>
    async (tables, undo, rows) => {
      const stored = tables[table] as unknown as DexieTable<BackupRow<Table>, string>;
      await putNewer(tables, undo, table, rows, await stored.bulkGet(rows.map((row) => row.id)));
    };

  const writers: { [Table in BackupTable]: Writer<Table> } = {
    async sessions(tables, undo, rows) {
      const existingRows = await tables.sessions.bulkGet(rows.map((s) => s.id));
      const written = rows.flatMap((session, index) => {
        const existing = existingRows[index];
        const decision = decide(existing, session);
        count(decision);
        if (existing === undefined) {
          writtenSessions.add(session.id);
          return [session];
        }
        if (decision === 'keep') return [];
        // A replaced session gets a version above both sides', so no cache keyed on the old
        // version can serve the imported chain as if it were the previous one.
        writtenSessions.add(session.id);
        return [{ ...session, version: Math.max(existing.version, session.version) + 1 }];
      });
      await putRecorded(tables, undo, 'sessions', written, byKey('sessions', existingRows));
    },
    async messages(tables, undo, rows) {
      const existingRows = await tables.messages.bulkGet(rows.map((m) => m.id));
      const incoming = rows.filter((message, index) => {
        const decision = decide(existingRows[index], message);
        count(decision);
        return decision !== 'keep';
      });
      // The file's links are checked whether or not its rows are newer: a cycle makes the file
      // bad. Every cycle is found once its last message arrives: the walk from that batch's rows
      // follows the links of the rows written before, so memory holds one batch's links.
      const cycle = await findImportedParentCycle(
        tables,
        new Map(rows.map((message) => [message.id, message.parentId])),
      );
      if (cycle !== undefined) throw invalidBackup(describeCycle(cycle));
      const written = incoming.map((message) => {
        touchedSessions.add(message.sessionId);
        return toMessageRow(message);
      });
      const placed = await placeImportedRows(tables, written);
      await putRecorded(tables, undo, 'messages', placed, byKey('messages', existingRows));
    },
    projects: writeNewerById('projects'),
    async files(tables, undo, rows) {
      const existingRows = await tables.files.bulkGet(rows.map((f) => f.id));
      const written: StoredFile[] = [];
      rows.forEach(({ blobBase64, blobType, ...file }, index) => {
        backupFileIds.add(file.id);
        const decision = decide(existingRows[index], file);
        count(decision);
        if (decision === 'keep') return;
        filesWritten.add(file.id);
        written.push({ ...file, blob: new Blob([decodeBase64(blobBase64)], { type: blobType }) });
      });
      // A replaced file's chunks are replaced with it: stale chunks would cite the old text.
      const staleChunks = await tables.chunks
        .where('fileId')
        .anyOf(written.map((file) => file.id))
        .toArray();
      for (const chunk of staleChunks) undo.record('chunks', chunk.id, chunk);
      await tables.chunks.bulkDelete(staleChunks.map((chunk) => chunk.id));
      // A file's text is stored apart from its row, so listing files reads no text.
      const split = written.map(toFileRows);
      const existingTexts = await tables.fileTexts.bulkGet(written.map((file) => file.id));
      await putRecorded(tables, undo, 'fileTexts', split.map(({ text }) => text), byKey('fileTexts', existingTexts));
      await putRecorded(tables, undo, 'files', split.map(({ row }) => row), byKey('files', existingRows));
      await invalidateRecorded(tables, undo, new Map(written.map((file) => [file.id, file.projectId])));
    },
    async chunks(tables, undo, rows) {
      const existingRows = await tables.chunks.bulkGet(rows.map((c) => c.id));
      const written: ChunkRow[] = [];
      rows.forEach(({ embeddingBase64, ...chunk }, index) => {
        const isWanted =
          filesWritten.has(chunk.fileId) ||
          (!backupFileIds.has(chunk.fileId) && existingRows[index] === undefined);
        count(isWanted ? 'insert' : 'keep');
        if (!isWanted) return;
        written.push({
          ...chunk,
          embedding: embeddingBase64 === null ? null : decodeBase64(embeddingBase64).buffer,
        });
      });
      await putRecorded(tables, undo, 'chunks', written, byKey('chunks', existingRows));
      await invalidateRecorded(tables, undo, new Map(written.map((chunk) => [chunk.fileId, chunk.projectId])));
    },
    agents: writeNewerById('agents'),
    prompts: writeNewerById('prompts'),
    async providers(tables, undo, rows) {
      const existingRows = await tables.providers.bulkGet(rows.map((p) => p.id));
      const written = rows.flatMap((provider, index) => {
        const existing = existingRows[index];
        const decision = decide(existing, provider);
        count(decision);
        if (decision === 'keep') return [];
        // A backup without keys keeps this device's key only where it was entered for.
        const merged = mergeImportedProvider(existing, provider, header.hasApiKeys);
        if (merged.isKeyDropped) report.providersWithoutKey.push(provider.name);
        return [merged.provider];
      });
      await putRecorded(tables, undo, 'providers', written, byKey('providers', existingRows));
    },
    async settings(tables, undo, rows) {
      // A setting this version does not know has no schema to pass, so it is left out.
      const known = rows.filter((setting) => isSettingKey(setting.key));
      await putNewer(
        tables,
        undo,
        'settings',
        known,
        await tables.settings.bulkGet(known.map((s) => s.key)),
      );
    },
    async usage(tables, undo, rows) {
      const existingRows = await tables.usage.bulkGet(rows.map((u) => u.id));
      const written = rows.filter((_record, index) => {
        const isNew = existingRows[index] === undefined;
        count(isNew ? 'insert' : 'keep');
        return isNew;
      });
      await putRecorded(tables, undo, 'usage', written, new Map());
    },
    async summaries(tables, undo, rows) {
      const existingRows = await tables.summaries.bulkGet(rows.map((s) => s.id));
      const written = rows.filter((summary, index) => {
        const existing = existingRows[index];
        // A summary never changes once written, except that "Undo compaction" marks it.
        const decision: Decision =
          existing === undefined
            ? 'insert'
            : summary.undoneAt !== undefined && existing.undoneAt === undefined
              ? 'replace'
              : 'keep';
        count(decision);
        return decision !== 'keep';
      });
      await putRecorded(tables, undo, 'summaries', written, byKey('summaries', existingRows));
    },
  };

  /** Rows waiting to be written, one group per table in file order (a few small tables share). */
  let groups: Batch[] = [];
  let pendingRows = 0;
  let pendingChars = 0;

  const isFull = (next: BackupRecord): boolean => {
    const current = groups[groups.length - 1];
    if (current === undefined) return false;
    if (current.table === 'messages' && next.table === 'messages') {
      // Flushing between sessions keeps each session's messages in one batch, placed at once.
      const last = current.rows[current.rows.length - 1];
      return (
        current.rows.length >= MAX_MESSAGE_BATCH_ROWS ||
        (pendingRows >= BATCH_ROWS && last?.sessionId !== next.row.sessionId)
      );
    }
    return pendingRows >= BATCH_ROWS || pendingChars >= BATCH_CHARS;
  };

  return {
    report,
    /** Whether the pending rows must be written before `record` joins them. */
    isFullFor: isFull,
    /** Adds a row to the pending batch. */
    add(record: BackupRecord): void {
      const last = groups[groups.length - 1];
      const current: Batch =
        last?.table === record.table ? last : ({ table: record.table, rows: [] });
      if (current !== last) groups.push(current);
      (current.rows as BackupRecord['row'][]).push(record.row);
      pendingRows += 1;
      pendingChars += measureRecord(record);
    },
    /** Hands the pending batch over to be written (empty when nothing is pending). */
    take(): RowBatch {
      const taken = groups;
      groups = [];
      pendingRows = 0;
      pendingChars = 0;
      return taken;
    },
    /** Writes a batch into the caller's transaction, table by table in file order. */
    async write(tables: BackupTables, undo: UndoRecorder, pending: RowBatch): Promise<void> {
      for (const group of pending)
        await (writers[group.table] as Writer<BackupTable>)(tables, undo, group.rows);
    },
    /** Sessions whose chats changed here but whose rows were not written from the backup. */
    sessionsToBump(): string[] {
      return [...touchedSessions].filter((id) => !writtenSessions.has(id));
    },
    /** Gives each of those sessions a new version, so no cache serves its chain stale. */
    async bumpVersions(tables: BackupTables, undo: UndoRecorder, ids: string[]): Promise<void> {
      const rows = (await tables.sessions.bulkGet(ids)).filter(
        (row): row is SessionRow => row !== undefined,
      );
      await putRecorded(
        tables,
        undo,
        'sessions',
        rows.map((row) => ({ ...row, version: row.version + 1 })),
        byKey('sessions', rows),
      );
    },
  };
}
