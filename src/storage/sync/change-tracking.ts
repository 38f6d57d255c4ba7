/**
 * Records every local change to a synced table in the same IndexedDB transaction as the change
 * itself, as a Dexie middleware under every store: whichever code writes a session, a message or
 * a setting, its sync record (revision, device, time, per-field stamps, pending flag) is written
 * or none is. Deletions leave the record behind as a tombstone. Writes that come from the
 * server go through `applyingRemote`, which the middleware lets pass untouched.
 *
 * Tracking starts on a device when sync is first set up there: that gives the device its id and
 * records every row it holds (`startTracking` in sync.store.ts). Until then a write costs one
 * read of that id per transaction and nothing else, so a device that never syncs does not pay
 * for sync on every write.
 */
import type {
  DBCore,
  DBCoreMutateRequest,
  DBCoreMutateResponse,
  DBCoreTable,
  DBCoreTransaction,
  Middleware,
} from 'dexie';
import {
  formatStamp,
  MAX_ANCESTORS,
  revisionGeneration,
  stampLocalChange,
} from '../../core/sync/record-version';
import { randomRevisionHash } from '../../core/sync/sync-crypto';
import { namedKeys } from '../mutate-keys';
import {
  isSyncedTable,
  SYNC_RECORDS_TABLE,
  SYNC_STATE_TABLE,
  syncRecordKey,
  toSyncedBody,
  type SyncedTable,
} from './synced-tables';

/**
 * The file bytes the server holds as a record's attachment: which content they are (the file's
 * hash), the stub that names them in later revisions (`digest` for PouchDB, `revpos` for
 * CouchDB), and the newest revision known to carry them (absent in records from before it was
 * kept). A fetch asks for that revision's bytes: the document's current revision may already
 * carry other bytes, from a device whose edit this one has not pulled yet.
 */
export interface SyncAttachment {
  hash: string;
  digest: string;
  revpos: number;
  length: number;
  rev?: string;
}

/** One synced record's state on this device; the row itself lives in its own table. */
export interface SyncRecordRow {
  key: string;
  table: SyncedTable;
  id: string;
  rev: string;
  ancestors: string[];
  isDeleted: boolean;
  stamps: Record<string, string>;
  device: string;
  changedAt: number;
  /** The server's id for it, once known (an HMAC, computed outside transactions). */
  docId?: string;
  /** A file's bytes on the server, once sent or seen there. */
  attachment?: SyncAttachment;
  /** 1 while the server lacks this revision; absent otherwise, so the index lists only these. */
  pending?: 1;
}

export interface SyncStateRow {
  key: string;
  value: unknown;
}

/** The device's id, and the hybrid clock's last stamp time. */
export const DEVICE_KEY = 'device';
export const CLOCK_KEY = 'clock';

const remoteTransactions = new WeakSet<object>();

/** Marks a Dexie transaction's writes as coming from the server: not tracked again. */
export function markApplyingRemote(idbTransaction: object): void {
  remoteTransactions.add(idbTransaction);
}

export function nextLocalRevision(previous: string | undefined): string {
  const generation = previous === undefined ? 0 : revisionGeneration(previous);
  return `${generation + 1}-${randomRevisionHash()}`;
}

interface TrackedChange {
  id: string;
  before: unknown;
  after: unknown;
  /** The change's place in the write request, where its failure would be reported. */
  requestIndex: number;
  /** Its sync record before the change (absent: never synced). */
  record: SyncRecordRow | undefined;
}

/** A sync record to write, with the change it records and the record it replaces. */
interface RecordUpdate {
  row: SyncRecordRow;
  change: TrackedChange;
}

/**
 * The device and the stamp time of a transaction's changes. Every write in one transaction
 * shares them: the state is read once per transaction and the clock moved once, not once per
 * write (a backup import writes many tables in each of its transactions).
 */
interface TransactionStamp {
  device: string;
  time: number;
  /** Whether the clock is written in this transaction already. */
  isSaved: boolean;
}

/** Per transaction: its stamp, or null where tracking has not started on this device. */
const transactionStamps = new WeakMap<object, Promise<TransactionStamp | null>>();

async function stampTransaction(
  state: DBCoreTable,
  trans: DBCoreTransaction,
  now: () => number,
): Promise<TransactionStamp | null> {
  const [deviceRow, clockRow] = (await state.getMany({ trans, keys: [DEVICE_KEY, CLOCK_KEY] })) as (
    SyncStateRow | undefined
  )[];
  const device = deviceRow?.value;
  if (typeof device !== 'string') return null;
  const clock = typeof clockRow?.value === 'number' ? clockRow.value : 0;
  const time = Math.max(now(), clock + 1);
  return { device, time, isSaved: false };
}

function readTransactionStamp(
  state: DBCoreTable,
  trans: DBCoreTransaction,
  now: () => number,
): Promise<TransactionStamp | null> {
  let stamp = transactionStamps.get(trans);
  if (stamp === undefined) {
    stamp = stampTransaction(state, trans, now);
    transactionStamps.set(trans, stamp);
  }
  return stamp;
}

/** The sync records of `ids` in `table` as they are before this write (absent: never synced). */
function readRecords(
  core: DBCore,
  trans: DBCoreTransaction,
  table: SyncedTable,
  ids: readonly unknown[],
): Promise<(SyncRecordRow | undefined)[]> {
  const keys = ids.map((id) => (typeof id === 'string' ? syncRecordKey(table, id) : ''));
  return core.table(SYNC_RECORDS_TABLE).getMany({ trans, keys }) as Promise<
    (SyncRecordRow | undefined)[]
  >;
}

/**
 * The sync records that `changes` make, stamped with the transaction's stamp; a change that
 * changes no synced field makes none.
 */
function planRecords(
  table: SyncedTable,
  changes: readonly TrackedChange[],
  stamped: TransactionStamp,
): RecordUpdate[] {
  const { device, time } = stamped;
  const stamp = formatStamp(time, device);
  const updates: RecordUpdate[] = [];
  for (const change of changes) {
    const { record } = change;
    const before = change.before === undefined ? undefined : toSyncedBody(table, change.before);
    const after = change.after === undefined ? undefined : toSyncedBody(table, change.after);
    const stamps = stampLocalChange(
      record?.stamps ?? {},
      before,
      after,
      stamp,
      record?.isDeleted ?? false,
    );
    if (stamps === null) continue;
    updates.push({
      change,
      row: {
        key: syncRecordKey(table, change.id),
        table,
        id: change.id,
        rev: nextLocalRevision(record?.rev),
        ancestors:
          record === undefined ? [] : [record.rev, ...record.ancestors].slice(0, MAX_ANCESTORS),
        isDeleted: after === undefined,
        stamps,
        device,
        changedAt: time,
        ...(record?.docId === undefined ? {} : { docId: record.docId }),
        ...(record?.attachment === undefined ? {} : { attachment: record.attachment }),
        pending: 1,
      },
    });
  }
  return updates;
}

/** Fails the write when IndexedDB refused part of it (Dexie reports those without throwing). */
function assertWritten(response: DBCoreMutateResponse, what: string): void {
  if (response.numFailures === 0) return;
  const failure: unknown = Object.values(response.failures)[0];
  throw failure instanceof Error ? failure : new Error(`Could not write ${what}.`);
}

/** Writes the records, and the clock once per transaction. */
async function writeRecords(
  core: DBCore,
  trans: DBCoreTransaction,
  updates: readonly RecordUpdate[],
  stamped: TransactionStamp,
): Promise<void> {
  const writes = [
    core
      .table(SYNC_RECORDS_TABLE)
      .mutate({ type: 'put', trans, values: updates.map((update) => update.row) }),
  ];
  if (!stamped.isSaved) {
    stamped.isSaved = true;
    const clock: SyncStateRow = { key: CLOCK_KEY, value: stamped.time };
    writes.push(core.table(SYNC_STATE_TABLE).mutate({ type: 'put', trans, values: [clock] }));
  }
  for (const response of await Promise.all(writes)) assertWritten(response, 'sync records');
}

/** Puts back the records of changes that did not happen: the one before, or none. */
async function restoreRecords(
  core: DBCore,
  trans: DBCoreTransaction,
  updates: readonly RecordUpdate[],
): Promise<void> {
  const records = core.table(SYNC_RECORDS_TABLE);
  const previous = updates.flatMap(({ change }) =>
    change.record === undefined ? [] : [change.record],
  );
  const created = updates.flatMap(({ change, row }) =>
    change.record === undefined ? [row.key] : [],
  );
  const writes: Promise<DBCoreMutateResponse>[] = [];
  if (previous.length > 0) writes.push(records.mutate({ type: 'put', trans, values: previous }));
  if (created.length > 0) writes.push(records.mutate({ type: 'delete', trans, keys: created }));
  for (const response of await Promise.all(writes)) assertWritten(response, 'sync records');
}

/** The keys a request touches and the rows they hold before it. */
async function readBefore(
  table: DBCoreTable,
  req: DBCoreMutateRequest,
  named: unknown[] | undefined,
): Promise<{ keys: unknown[]; before: unknown[] }> {
  if (named !== undefined) {
    // An add that succeeds found nothing there; one that fails is not recorded.
    if (req.type === 'add') return { keys: named, before: named.map(() => undefined) };
    const before = (await table.getMany({ trans: req.trans, keys: named })) as unknown[];
    return { keys: named, before };
  }
  if (req.type !== 'deleteRange') throw new Error(`A ${req.type} request names its keys.`);
  const extract = table.schema.primaryKey.extractKey;
  if (extract !== null && extract !== undefined) {
    // One read for keys and rows (every synced table keeps its key in the row).
    const found = await table.query({
      trans: req.trans,
      values: true,
      query: { index: table.schema.primaryKey, range: req.range },
    });
    const rows = found.result as unknown[];
    return { keys: rows.map((row): unknown => extract(row)), before: rows };
  }
  const found = await table.query({
    trans: req.trans,
    values: false,
    query: { index: table.schema.primaryKey, range: req.range },
  });
  const keys = found.result as unknown[];
  return { keys, before: (await table.getMany({ trans: req.trans, keys })) as unknown[] };
}

/** What a write would change, key by key: a delete of a missing row changes nothing. */
function listChanges(
  req: DBCoreMutateRequest,
  keys: readonly unknown[],
  before: readonly unknown[],
  records: readonly (SyncRecordRow | undefined)[],
): TrackedChange[] {
  const changes: TrackedChange[] = [];
  keys.forEach((key, index) => {
    if (typeof key !== 'string') return;
    const after =
      req.type === 'add' || req.type === 'put' ? (req.values[index] as unknown) : undefined;
    const previous = before[index];
    if (previous === undefined && after === undefined) return;
    changes.push({ id: key, before: previous, after, requestIndex: index, record: records[index] });
  });
  return changes;
}

async function mutateTracked(
  core: DBCore,
  table: DBCoreTable,
  name: SyncedTable,
  req: DBCoreMutateRequest,
  now: () => number,
): Promise<DBCoreMutateResponse> {
  const trans = req.trans as DBCoreTransaction & { mode?: string };
  // Schema upgrades write rows before the sync tables exist; version 10 records what they left.
  if (remoteTransactions.has(req.trans) || trans.mode === 'versionchange') return table.mutate(req);
  const stamped = await readTransactionStamp(core.table(SYNC_STATE_TABLE), req.trans, now);
  if (stamped === null) return table.mutate(req);
  // The rows before and their sync records are read together rather than one after the other,
  // and the write, the records and the clock are written together below.
  const named = namedKeys(table, req);
  const [{ keys, before }, namedRecords] = await Promise.all([
    readBefore(table, req, named),
    named === undefined ? undefined : readRecords(core, req.trans, name, named),
  ]);
  const records = namedRecords ?? (await readRecords(core, req.trans, name, keys));
  const updates = planRecords(name, listChanges(req, keys, before, records), stamped);
  if (updates.length === 0) return table.mutate(req);
  // The write and its records go out together (requests in one transaction run in the order
  // they were made), and a key whose write failed gets its record back as it was before.
  const written = table.mutate(req);
  const recorded = writeRecords(core, req.trans, updates, stamped);
  let response: DBCoreMutateResponse;
  try {
    response = await written;
  } catch (error) {
    await recorded.catch(() => undefined);
    await restoreRecords(core, req.trans, updates).catch(() => undefined);
    throw error;
  }
  await recorded;
  const failed = updates.filter(
    ({ change }) => response.failures[change.requestIndex] !== undefined,
  );
  if (failed.length > 0) await restoreRecords(core, req.trans, failed);
  return response;
}

/** The middleware: every read-write transaction on a synced table also opens the sync tables. */
export function createChangeTracking(now: () => number): Middleware<DBCore> {
  return {
    stack: 'dbcore',
    name: 'carrel-sync-tracking',
    // Right above IndexedDB, under Dexie's own layers: nothing below depends on Dexie's zone,
    // so awaiting inside `mutate` is safe, and whatever Dexie does above (hooks, bulk updates,
    // range deletes) reaches here as plain key-by-key requests.
    level: -2,
    create(down) {
      return {
        ...down,
        transaction(stores, mode, options) {
          const isTracked = mode === 'readwrite' && stores.some(isSyncedTable);
          if (!isTracked) return down.transaction(stores, mode, options);
          const scope = [...new Set([...stores, SYNC_RECORDS_TABLE, SYNC_STATE_TABLE])];
          const trans = down.transaction(scope, mode, options);
          // Whether tracking has started is asked as the transaction opens, next to the
          // caller's own first reads, so a write rarely waits for the answer.
          readTransactionStamp(down.table(SYNC_STATE_TABLE), trans, now).catch(() => undefined);
          return trans;
        },
        table(name) {
          const table = down.table(name);
          if (!isSyncedTable(name)) return table;
          return { ...table, mutate: (req) => mutateTracked(down, table, name, req, now) };
        },
      };
    },
  };
}
