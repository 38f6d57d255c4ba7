/**
 * What the replicator reads and writes on this device: pending records with their bodies, the
 * revisions it knows, and the records that arrived. Everything here is short transactions; the
 * encryption and the network happen between them, never inside one (IndexedDB would commit a
 * transaction that waits for anything else).
 */
import type { Table } from 'dexie';
import { readStampTime, type RecordVersion } from '../../core/sync/record-version';
import type { CarrelDb, MessageRow } from '../db';
import { guardStorage } from '../guard';
import { placeImportedRows, type UnplacedMessageRow } from '../message-lines';
import { invalidateSearchBlocks } from '../search-block-revisions';
import {
  CLOCK_KEY,
  DEVICE_KEY,
  markApplyingRemote,
  type SyncAttachment,
  type SyncRecordRow,
} from './change-tracking';
import { toIncomingRow } from './incoming-row';
import { recordExistingRows, type SyncHistoryRow } from './record-existing';
import {
  SYNCED_TABLES,
  SYNC_HISTORY_TABLE,
  SYNC_RECORDS_TABLE,
  SYNC_STATE_TABLE,
  syncRecordKey,
  toSyncedBody,
  withoutSecrets,
  type SyncedTable,
} from './synced-tables';

/** A record as the server should get it: its newest version and where it lives. */
export interface OutgoingRecord extends RecordVersion {
  key: string;
  table: SyncedTable;
  id: string;
  docId?: string;
  /** A file's bytes already on the server. */
  attachment?: SyncAttachment;
  /** A file's bytes, when this device has them. */
  blob?: Blob;
}

export interface LocalVersion extends RecordVersion {
  key: string;
  isPending: boolean;
  attachment?: SyncAttachment;
}

/** Where a file's bytes are on the server, for a fetch on demand. */
export interface FileBytesSource {
  docId: string;
  hash: string;
  attachment?: SyncAttachment;
}

/** What the replicator decided for one record that arrived. */
export interface IncomingResolution {
  key: string;
  table: SyncedTable;
  id: string;
  docId: string;
  /** The local revision the decision was made against; null when the record was unknown. */
  expectedRev: string | null;
  version: RecordVersion;
  /** True for a merge this device made: the server does not have it yet. */
  isPending: boolean;
  /** Versions whose content lost something in the merge; kept in the history table. */
  losers: RecordVersion[];
  /** The file bytes the server holds for this version's content, when known. */
  attachment?: SyncAttachment;
}

export interface ApplyReport {
  applied: number;
  /** Records changed here since they were read: decide again with the newer local version. */
  stale: string[];
  /** Records that arrived invalid (e.g. from a newer Carrel): not stored, named here. */
  invalid: string[];
}

export { SYNC_STATE_KEYS, isSyncConfigured } from './sync-state';

export interface SyncStore {
  deviceId(): Promise<string>;
  readState(key: string): Promise<unknown>;
  writeState(key: string, value: unknown): Promise<void>;
  deleteState(keys: readonly string[]): Promise<void>;
  /** Up to `limit` records the server lacks, oldest tables first (see `SYNCED_TABLES`). */
  listPending(limit: number): Promise<OutgoingRecord[]>;
  countPending(): Promise<number>;
  /** The server now has these revisions; a record edited since stays pending. */
  markPushed(
    entries: readonly { key: string; rev: string; docId: string; attachment?: SyncAttachment }[],
  ): Promise<void>;
  /** The server no longer has these records' attachments: the next push sends the bytes again. */
  forgetAttachments(keys: readonly string[]): Promise<void>;
  /** Where a file's bytes are on the server; undefined when the file never synced. */
  readFileBytesSource(fileId: string): Promise<FileBytesSource | undefined>;
  /** Stores bytes fetched for a file, if it still holds the content they are; true when stored. */
  storeFileBytes(fileId: string, hash: string, bytes: Uint8Array<ArrayBuffer>): Promise<boolean>;
  /** The revisions this device holds for server documents it already knows, by document id. */
  findKnownRevisions(
    docIds: readonly string[],
  ): Promise<Map<string, Pick<RecordVersion, 'rev' | 'ancestors'>>>;
  readLocalVersions(keys: readonly string[]): Promise<Map<string, LocalVersion>>;
  applyIncoming(resolutions: readonly IncomingResolution[], mergedAt: number): Promise<ApplyReport>;
  listHistory(recordKey: string): Promise<SyncHistoryRow[]>;
  /**
   * Whether a backup import is under way (in any tab). Sync waits for it: what the import writes
   * may still be undone, and an undo puts back rows as they were before it, which would overwrite
   * anything pulled meanwhile.
   */
  isImportUnderway(): Promise<boolean>;
  /**
   * Before a (new) server: every record pending again, server ids forgotten (they depend on the
   * database's key), so the server gets whatever it lacks; `_revs_diff` skips what it has.
   */
  resetRecords(): Promise<void>;
}

function rowTable(db: CarrelDb, table: SyncedTable): Table<Record<string, unknown>, string> {
  return db.table(table);
}

function toVersion(record: SyncRecordRow, body: Record<string, unknown>): RecordVersion {
  return {
    rev: record.rev,
    ancestors: record.ancestors,
    isDeleted: record.isDeleted,
    body: record.isDeleted ? {} : body,
    stamps: record.stamps,
    device: record.device,
    changedAt: record.changedAt,
  };
}

async function readBodies(
  db: CarrelDb,
  records: readonly SyncRecordRow[],
): Promise<{ body: Record<string, unknown>; blob?: Blob }[]> {
  return Promise.all(
    records.map(async (record) => {
      if (record.isDeleted) return { body: {} };
      const row = await rowTable(db, record.table).get(record.id);
      if (row === undefined) return { body: {} };
      const body = toSyncedBody(record.table, row);
      const hasBytes = row.blob instanceof Blob && row.isBlobRemote !== true;
      return hasBytes ? { body, blob: row.blob as Blob } : { body };
    }),
  );
}

const allSyncTables = (db: CarrelDb) => [
  ...SYNCED_TABLES.map((table) => db.table(table)),
  db.table(SYNC_RECORDS_TABLE),
  db.table(SYNC_STATE_TABLE),
  db.table(SYNC_HISTORY_TABLE),
];

/** The tables that starting change tracking reads and writes. */
function trackingScope(db: CarrelDb): Table[] {
  return [...SYNCED_TABLES.map((table) => db.table(table)), db.syncRecords, db.syncState];
}

/** The device's id, once change tracking has started here. */
async function readDeviceId(db: CarrelDb): Promise<string | undefined> {
  const value = (await db.syncState.get(DEVICE_KEY))?.value;
  return typeof value === 'string' ? value : undefined;
}

/**
 * Starts change tracking on this device, once: in one transaction with every synced table, so
 * each write from any tab or worker lands either before (and is recorded here) or after (and is
 * tracked). Returns the device's id.
 */
function startTracking(db: CarrelDb): Promise<string> {
  return db.transaction('rw', trackingScope(db), async (tx) => {
    return (await readDeviceId(db)) ?? recordExistingRows(tx, db.syncClock());
  });
}

export function createSyncStore(db: CarrelDb): SyncStore {
  const tableOrder = new Map<string, number>(SYNCED_TABLES.map((table, index) => [table, index]));
  return {
    deviceId: () => guardStorage(db, () => startTracking(db)),

    readState: (key) => guardStorage(db, async () => (await db.syncState.get(key))?.value),
    writeState: (key, value) =>
      guardStorage(db, async () => {
        await db.syncState.put({ key, value });
      }),
    deleteState: (keys) =>
      guardStorage(db, async () => {
        await db.syncState.bulkDelete([...keys]);
      }),

    listPending: (limit) =>
      guardStorage(db, () =>
        db.transaction('r', allSyncTables(db), async () => {
          const records = (await db.syncRecords.where('pending').equals(1).toArray()).sort(
            (a, b) => (tableOrder.get(a.table) ?? 0) - (tableOrder.get(b.table) ?? 0),
          );
          const batch = records.slice(0, limit);
          const bodies = await readBodies(db, batch);
          return batch.map((record, index): OutgoingRecord => {
            const read = bodies[index];
            return {
              ...toVersion(record, read?.body ?? {}),
              key: record.key,
              table: record.table,
              id: record.id,
              ...(record.docId === undefined ? {} : { docId: record.docId }),
              ...(record.attachment === undefined ? {} : { attachment: record.attachment }),
              ...(read?.blob === undefined ? {} : { blob: read.blob }),
            };
          });
        }),
      ),

    countPending: () => guardStorage(db, () => db.syncRecords.where('pending').equals(1).count()),

    markPushed: (entries) =>
      guardStorage(db, () =>
        db.transaction('rw', db.syncRecords, async () => {
          const records = await db.syncRecords.bulkGet(entries.map((entry) => entry.key));
          const updated: SyncRecordRow[] = [];
          records.forEach((record, index) => {
            const entry = entries[index];
            if (record === undefined || entry === undefined) return;
            const next: SyncRecordRow = {
              ...record,
              docId: entry.docId,
              ...(entry.attachment === undefined ? {} : { attachment: entry.attachment }),
            };
            if (record.rev === entry.rev) delete next.pending;
            updated.push(next);
          });
          await db.syncRecords.bulkPut(updated);
        }),
      ),

    forgetAttachments: (keys) =>
      guardStorage(db, () =>
        db.transaction('rw', db.syncRecords, async () => {
          const records = await db.syncRecords.bulkGet([...keys]);
          await db.syncRecords.bulkPut(
            records.flatMap((record) => {
              if (record === undefined) return [];
              const { attachment: _forgotten, ...rest } = record;
              return [rest];
            }),
          );
        }),
      ),

    readFileBytesSource: (fileId) =>
      guardStorage(db, () =>
        db.transaction('r', [db.files, db.syncRecords], async () => {
          const [row, record] = await Promise.all([
            db.files.get(fileId),
            db.syncRecords.get(syncRecordKey('files', fileId)),
          ]);
          if (row === undefined || record?.docId === undefined) return undefined;
          return {
            docId: record.docId,
            hash: row.hash,
            ...(record.attachment === undefined ? {} : { attachment: record.attachment }),
          };
        }),
      ),

    storeFileBytes: (fileId, hash, bytes) =>
      guardStorage(db, () =>
        db.transaction('rw', db.files, async () => {
          const row = await db.files.get(fileId);
          if (row === undefined || row.hash !== hash) return false;
          const { isBlobRemote: _fetched, ...rest } = row;
          // Only this device's own fields change: no revision, nothing to send.
          await db.files.put({ ...rest, blob: new Blob([bytes], { type: row.mimeType }) });
          return true;
        }),
      ),

    findKnownRevisions: (docIds) =>
      guardStorage(db, async () => {
        const records = await db.syncRecords
          .where('docId')
          .anyOf([...docIds])
          .toArray();
        return new Map(
          records.flatMap((record) =>
            record.docId === undefined
              ? []
              : [[record.docId, { rev: record.rev, ancestors: record.ancestors }]],
          ),
        );
      }),

    readLocalVersions: (keys) =>
      guardStorage(db, () =>
        db.transaction('r', allSyncTables(db), async () => {
          const records = (await db.syncRecords.bulkGet([...keys])).filter(
            (record): record is SyncRecordRow => record !== undefined,
          );
          const bodies = await readBodies(db, records);
          return new Map(
            records.map((record, index) => [
              record.key,
              {
                ...toVersion(record, bodies[index]?.body ?? {}),
                key: record.key,
                isPending: record.pending === 1,
                ...(record.attachment === undefined ? {} : { attachment: record.attachment }),
              },
            ]),
          );
        }),
      ),

    applyIncoming: (resolutions, mergedAt) =>
      guardStorage(db, () =>
        db.transaction('rw', [...allSyncTables(db), db.searchBlocks, db.searchSnapshots], async (tx) => {
          markApplyingRemote(tx.idbtrans);
          const report: ApplyReport = { applied: 0, stale: [], invalid: [] };
          const touchedSessions = new Set<string>();
          // Files whose chunks changed: their search blocks are rebuilt, as after a local write.
          const touchedFiles = new Map<string, string | null>();
          const touchFile = (row: Record<string, unknown> | undefined) => {
            if (typeof row?.fileId !== 'string') return;
            touchedFiles.set(row.fileId, typeof row.projectId === 'string' ? row.projectId : null);
          };
          const messages: UnplacedMessageRow[] = [];
          const accepted: IncomingResolution[] = [];
          for (const resolution of resolutions) {
            const record = await db.syncRecords.get(resolution.key);
            if ((record?.rev ?? null) !== resolution.expectedRev) {
              report.stale.push(resolution.key);
              continue;
            }
            const table = rowTable(db, resolution.table);
            const existing = await table.get(resolution.id);
            if (resolution.version.isDeleted) {
              if (resolution.table === 'messages' && typeof existing?.sessionId === 'string')
                touchedSessions.add(existing.sessionId);
              if (resolution.table === 'chunks') touchFile(existing);
              await table.delete(resolution.id);
            } else {
              const row = toIncomingRow(resolution.table, resolution.version.body, existing);
              if (!row.ok) {
                report.invalid.push(row.error);
                continue;
              }
              if (resolution.table === 'messages') {
                const message = row.value as UnplacedMessageRow;
                if (existing !== undefined && existing.parentId !== message.parentId) {
                  report.invalid.push(
                    `A synced message (${resolution.id}) moved to another parent; it was not applied.`,
                  );
                  continue;
                }
                messages.push(message);
                touchedSessions.add(message.sessionId);
              } else {
                if (resolution.table === 'chunks') touchFile(row.value);
                await table.put(row.value);
              }
            }
            accepted.push(resolution);
          }
          if (messages.length > 0) {
            const placed: MessageRow[] = await placeImportedRows(db, messages);
            await db.messages.bulkPut(placed);
          }
          await invalidateSearchBlocks(
            db,
            [...touchedFiles].map(([fileId, projectId]) => ({ fileId, projectId })),
          );
          for (const sessionId of touchedSessions) {
            await db.sessions
              .where('id')
              .equals(sessionId)
              .modify((session) => {
                session.version += 1;
              });
          }
          await db.syncRecords.bulkPut(
            accepted.map((resolution): SyncRecordRow => ({
              key: resolution.key,
              table: resolution.table,
              id: resolution.id,
              rev: resolution.version.rev,
              ancestors: resolution.version.ancestors,
              isDeleted: resolution.version.isDeleted,
              stamps: resolution.version.stamps,
              device: resolution.version.device,
              changedAt: resolution.version.changedAt,
              docId: resolution.docId,
              ...(resolution.attachment === undefined ? {} : { attachment: resolution.attachment }),
              ...(resolution.isPending ? { pending: 1 as const } : {}),
            })),
          );
          await db.syncHistory.bulkPut(
            accepted.flatMap((resolution) =>
              resolution.losers.map((loser): SyncHistoryRow => ({
                id: `${resolution.key}@${loser.rev}`,
                recordKey: resolution.key,
                table: resolution.table,
                recordId: resolution.id,
                rev: loser.rev,
                device: loser.device,
                changedAt: loser.changedAt,
                isDeleted: loser.isDeleted,
                // Credentials stay in their own table only, never in a history copy.
                body: withoutSecrets(resolution.table, loser.body, {}).body,
                mergedAt,
              })),
            ),
          );
          // The hybrid clock moves past what arrived, so this device's next edit stamps later.
          const seen = accepted
            .flatMap((resolution) => Object.values(resolution.version.stamps))
            .reduce((max, stamp) => Math.max(max, readStampTime(stamp)), 0);
          const clock = (await db.syncState.get(CLOCK_KEY))?.value;
          if (seen > (typeof clock === 'number' ? clock : 0))
            await db.syncState.put({ key: CLOCK_KEY, value: seen });
          report.applied = accepted.length;
          return report;
        }),
      ),

    resetRecords: () =>
      guardStorage(db, () =>
        db.transaction('rw', trackingScope(db), async () => {
          if ((await readDeviceId(db)) !== undefined) {
            await db.syncRecords.toCollection().modify((record) => {
              record.pending = 1;
              delete record.docId;
              delete record.attachment;
            });
          } else {
            await startTracking(db);
          }
        }),
      ),

    isImportUnderway: () => guardStorage(db, async () => (await db.imports.count()) > 0),

    listHistory: (recordKey) =>
      guardStorage(db, () => db.syncHistory.where('recordKey').equals(recordKey).toArray()),
  };
}
