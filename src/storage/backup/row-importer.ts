/**
 * Writes checked backup rows in batches, inside the caller's transaction. Each table's rule:
 * a row new here is inserted; a row on both sides is replaced when the backup's `updatedAt`
 * is newer and kept otherwise; a backup without keys never blanks a key this device has; a
 * replaced file brings its own chunks; usage records never change once written.
 */
import { mergeImportedProvider } from '../../core/model';
import { isSettingKey } from '../../core/model/settings';
import type { BackupImportReport } from '../../core/ports';
import type { CarrelDb, ChunkRow, FileRow } from '../db';
import { placeImportedRows } from '../message-lines';
import { toMessageRow } from '../message-rows';
import type { BackupRecord, BackupRow, BackupTable } from './backup-format';
import { decodeBase64 } from './base64';

/** Rows written per batch: large enough for few round trips, small enough for bounded memory. */
const BATCH_ROWS = 500;
/** Base64 characters per batch of files or chunks (about 24 MB of bytes). */
const BATCH_CHARS = 32_000_000;
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
export const measureRecord = (record: BackupRecord): number =>
  record.table === 'files'
    ? record.row.blobBase64.length
    : record.table === 'chunks'
      ? (record.row.embeddingBase64?.length ?? 0) + record.row.text.length
      : 0;

/** The tables a backup writes, bound to the import's transaction. */
export type BackupTables = Pick<CarrelDb, BackupTable>;

export function createRowImporter(db: BackupTables, header: { hasApiKeys: boolean }) {
  const report: BackupImportReport = {
    inserted: 0,
    replaced: 0,
    kept: 0,
    providersWithoutKey: [],
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

  const pickNewer = <T extends { updatedAt: number }>(
    rows: readonly T[],
    existing: readonly (T | undefined)[],
  ) =>
    rows.filter((row, index) => {
      const decision = decide(existing[index], row);
      count(decision);
      return decision !== 'keep';
    });

  const writers: { [Table in BackupTable]: (rows: BackupRow<Table>[]) => Promise<void> } = {
    async sessions(rows) {
      const existingRows = await db.sessions.bulkGet(rows.map((s) => s.id));
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
      await db.sessions.bulkPut(written);
    },
    async messages(rows) {
      const existingRows = await db.messages.bulkGet(rows.map((m) => m.id));
      const written = rows.flatMap((message, index) => {
        const decision = decide(existingRows[index], message);
        count(decision);
        if (decision === 'keep') return [];
        touchedSessions.add(message.sessionId);
        return [toMessageRow(message)];
      });
      await db.messages.bulkPut(await placeImportedRows(db, written));
    },
    async projects(rows) {
      await db.projects.bulkPut(pickNewer(rows, await db.projects.bulkGet(rows.map((p) => p.id))));
    },
    async files(rows) {
      const existingRows = await db.files.bulkGet(rows.map((f) => f.id));
      const written: FileRow[] = [];
      rows.forEach(({ blobBase64, blobType, ...file }, index) => {
        backupFileIds.add(file.id);
        const decision = decide(existingRows[index], file);
        count(decision);
        if (decision === 'keep') return;
        filesWritten.add(file.id);
        written.push({ ...file, blob: new Blob([decodeBase64(blobBase64)], { type: blobType }) });
      });
      // A replaced file's chunks are replaced with it: stale chunks would cite the old text.
      await db.chunks
        .where('fileId')
        .anyOf(written.map((file) => file.id))
        .delete();
      await db.files.bulkPut(written);
    },
    async chunks(rows) {
      const existingRows = await db.chunks.bulkGet(rows.map((c) => c.id));
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
      await db.chunks.bulkPut(written);
    },
    async agents(rows) {
      await db.agents.bulkPut(pickNewer(rows, await db.agents.bulkGet(rows.map((a) => a.id))));
    },
    async prompts(rows) {
      await db.prompts.bulkPut(pickNewer(rows, await db.prompts.bulkGet(rows.map((p) => p.id))));
    },
    async providers(rows) {
      const existingRows = await db.providers.bulkGet(rows.map((p) => p.id));
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
      await db.providers.bulkPut(written);
    },
    async settings(rows) {
      // A setting this version does not know has no schema to pass, so it is left out.
      const known = rows.filter((setting) => isSettingKey(setting.key));
      await db.settings.bulkPut(
        pickNewer(known, await db.settings.bulkGet(known.map((s) => s.key))),
      );
    },
    async usage(rows) {
      const existingRows = await db.usage.bulkGet(rows.map((u) => u.id));
      await db.usage.bulkPut(
        rows.filter((_record, index) => {
          const isNew = existingRows[index] === undefined;
          count(isNew ? 'insert' : 'keep');
          return isNew;
        }),
      );
    },
  };

  let batch: Batch | undefined;
  let batchChars = 0;

  const flush = async () => {
    if (batch === undefined) return;
    const pending = batch;
    batch = undefined;
    batchChars = 0;
    await (writers[pending.table] as (rows: unknown[]) => Promise<void>)(pending.rows);
  };

  const isFull = (current: Batch, next: BackupRecord): boolean => {
    if (current.table !== next.table) return true;
    if (current.table === 'messages' && next.table === 'messages') {
      // Flushing between sessions keeps each session's messages in one batch, placed at once.
      const last = current.rows[current.rows.length - 1];
      return (
        current.rows.length >= MAX_MESSAGE_BATCH_ROWS ||
        (current.rows.length >= BATCH_ROWS && last?.sessionId !== next.row.sessionId)
      );
    }
    return current.rows.length >= BATCH_ROWS || batchChars >= BATCH_CHARS;
  };

  return {
    /** Whether the current batch must be written before `record` joins one. */
    isFullFor(record: BackupRecord): boolean {
      return batch !== undefined && isFull(batch, record);
    },
    /** Writes the current batch. */
    flush,
    /**
     * Adds a row to the current batch. Synchronous on purpose: Dexie keeps its transaction
     * across only so many native awaits that touch no table, and a file has millions of rows.
     */
    add(record: BackupRecord): void {
      const current: Batch = batch ?? { table: record.table, rows: [] };
      (current.rows as BackupRecord['row'][]).push(record.row);
      batch = current;
      batchChars += measureRecord(record);
    },
    /** Writes the last batch and gives sessions whose chats changed a new version. */
    async finish(): Promise<BackupImportReport> {
      await flush();
      for (const id of touchedSessions) {
        if (writtenSessions.has(id)) continue;
        await db.sessions
          .where('id')
          .equals(id)
          .modify((session) => {
            session.version += 1;
          });
      }
      return report;
    },
  };
}
