/**
 * Packs: copies of a line's settled messages, many to a row, so a long chain loads in a few
 * reads of large values instead of one read per message. IndexedDB pays a fixed cost for each
 * row it returns, about as much as for the bytes of a typical message, so 10,000 messages load
 * from 78 packs in under half the time they take as 10,000 rows (`npm run bench -- storage`).
 *
 * The `messages` table stays the truth: sync, backups, indexes and every write use it alone. A
 * pack holds the rows at depths [start, start + size) of one line (`message-lines.ts`), whole,
 * none of them streaming, exactly as they were stored when it was made. Any write that touches
 * one of those rows, from any code, drops the pack in the same transaction (the middleware
 * below), so a pack is never older than the rows it copies. Packs are made in small
 * transactions of their own that read the rows again, so they are current when written: once a
 * transaction that wrote a settled message ending a bucket commits (the store's saves, imports,
 * sync), and after a chain load that read whole buckets row by row (chats from before packs).
 */
import type {
  DBCore,
  DBCoreMutateRequest,
  DBCoreMutateResponse,
  DBCoreRangeType,
  DBCoreTable,
  Dexie,
  Middleware,
  Table,
  Transaction,
} from 'dexie';
import { readPosition } from './message-lines';
import { namedKeys } from './mutate-keys';
import type { MessageRow } from './message-row';

const MESSAGES_TABLE = 'messages';
const MESSAGE_PACKS_TABLE = 'messagePacks';

/**
 * Messages per pack: a pack of the storage bench's messages is about 110 KB. Packs are found by
 * their first depth, so a change of this size needs a schema version that clears the packs. Chromium read
 * 10,000 of them in about 100 ms as single rows, 55–60 ms in rows of 25 or 64, and 25–30 ms in
 * rows of 128, 256 or 1,000 (a getAll alone, before the messages are checked).
 */
export const MESSAGE_PACK_SIZE = 128;

/** Buckets packed per transaction: each is short, so a message write never waits long. */
const BUCKETS_PER_PACKING = 4;

export interface MessagePackRow {
  lineId: string;
  /** The depth of its first row, a multiple of the pack size. */
  start: number;
  rows: MessageRow[];
}

interface PackTables {
  messages: Table<MessageRow, string>;
  messagePacks: Table<MessagePackRow, [string, number]>;
}

type PackDb = Dexie & PackTables & { readonly messagePackSize: number };

/**
 * The tables a chain walk reads, bound to its transaction: every read joins that transaction
 * however many native awaits lie between them (Dexie's zone follows only a limited number).
 */
export interface LineTables extends PackTables {
  packSize: number;
}

export function bindLineTables(tx: Transaction, packSize: number): LineTables {
  return {
    messages: tx.table(MESSAGES_TABLE) as Table<MessageRow, string>,
    messagePacks: tx.table(MESSAGE_PACKS_TABLE) as Table<MessagePackRow, [string, number]>,
    packSize,
  };
}

/** A bucket's name in the sets and maps that gather buckets: unique per line and start. */
function bucketName(lineId: string, start: number): string {
  return `${start}:${lineId}`;
}

function bucketOf(depth: number, size: number): number {
  return depth - (depth % size);
}

/** The key of the pack that would hold `row`, if it has a readable place in a line. */
function packKeyOf(row: unknown, size: number): [string, number] | undefined {
  if (typeof row !== 'object' || row === null) return undefined;
  const position = readPosition(row);
  return position === undefined ? undefined : [position.lineId, bucketOf(position.depth, size)];
}

/** The rows of a pack, if it is one of this size for this bucket; undefined otherwise. */
function readPack(pack: unknown, lineId: string, size: number): MessageRow[] | undefined {
  if (typeof pack !== 'object' || pack === null) return undefined;
  const { start, rows } = pack as Partial<MessagePackRow>;
  if (typeof start !== 'number' || !Array.isArray(rows) || rows.length !== size) return undefined;
  const isWhole = rows.every(
    (row, index) =>
      typeof row === 'object' &&
      row !== null &&
      row.lineId === lineId &&
      row.depth === start + index,
  );
  return isWhole ? rows : undefined;
}

/** Whether `rows` (read by range for one bucket) may be packed: all there, none streaming. */
function isPackable(rows: readonly MessageRow[], lineId: string, start: number, size: number) {
  return (
    rows.length === size &&
    rows.every(
      (row, index) =>
        row.lineId === lineId && row.depth === start + index && row.status !== 'streaming',
    )
  );
}

function readRows(db: PackTables, lineId: string, from: number, to: number): Promise<MessageRow[]> {
  return db.messages
    .where('[lineId+depth]')
    .between([lineId, from], [lineId, to], true, false)
    .toArray();
}

/**
 * The rows of `lineId` at depths [from, to), shallowest first (a missing depth is left out):
 * whole packs where they are stored, range reads for the rest. The packs and the last bucket's
 * rows are read together; buckets without a pack are read after, one range read per run of
 * them. The starts of whole buckets read row by row, worth packing, go to `unpacked`.
 */
export async function readLine(
  db: LineTables,
  lineId: string,
  from: number,
  to: number,
  unpacked: number[],
): Promise<MessageRow[]> {
  const size = db.packSize;
  if (to <= from) return [];
  const first = bucketOf(from, size);
  const last = bucketOf(to - 1, size);
  // The last bucket is worth packing when whole, counting the row at `to`, which the walk
  // entered the line by (packing checks it is there, and that no pack holds it yet).
  const isLastWhole = last >= from && last + size <= to + 1;
  if (to - from <= size) {
    // A pack's worth of rows or fewer (the end of a chain, for its first screen): one range
    // read costs less than a pack read beside it, which would bring rows not asked for.
    if (isLastWhole) unpacked.push(last);
    return readRows(db, lineId, from, to);
  }
  // The last bucket is always read by range: the walk entered the line in it, so it is rarely
  // whole, and a range read of its part costs less than its whole pack.
  const [stored, tail] = await Promise.all([
    db.messagePacks.where(':id').between([lineId, first], [lineId, last], true, false).toArray(),
    readRows(db, lineId, Math.max(from, last), to),
  ]);
  const packs = new Map<number, MessageRow[]>();
  for (const pack of stored) {
    const rows = readPack(pack, lineId, size);
    if (rows !== undefined) packs.set(pack.start, rows);
  }
  // Runs of buckets before the last that have no pack, each read with one range read.
  const runs: { from: number; to: number }[] = [];
  for (let bucket = first; bucket < last; bucket += size) {
    if (packs.has(bucket)) continue;
    const run = runs.at(-1);
    if (run !== undefined && run.to === bucket) run.to = bucket + size;
    else runs.push({ from: bucket, to: bucket + size });
  }
  const runRows = await Promise.all(
    runs.map((run) => readRows(db, lineId, Math.max(from, run.from), run.to)),
  );
  const rows: MessageRow[] = [];
  let runIndex = 0;
  for (let bucket = first; bucket < last; bucket += size) {
    const pack = packs.get(bucket);
    if (pack !== undefined) {
      for (const row of pack) if (row.depth >= from) rows.push(row);
    } else if (runs[runIndex]?.from === bucket) {
      rows.push(...(runRows[runIndex] as MessageRow[]));
      runIndex++;
    }
  }
  rows.push(...tail);
  for (const run of runs)
    for (let bucket = run.from; bucket < run.to; bucket += size)
      if (bucket >= from) unpacked.push(bucket);
  if (isLastWhole) unpacked.push(last);
  return rows;
}

/** Packing under way, per database: tests and benches wait for it with `settlePacking`. */
const packing = new WeakMap<object, Set<Promise<void>>>();
const queued = new WeakMap<object, Set<string>>();

/**
 * Packs these buckets of `lineId` in the background, a few per transaction, each re-read there so
 * the pack is current when written. A bucket that is no longer whole, or holds a message still
 * streaming, is left unpacked. Failures (a full disk, a closed database) only leave buckets
 * unpacked: loading reads their rows instead.
 */
export function schedulePacking(db: PackDb, lineId: string, starts: readonly number[]): void {
  const size = db.messagePackSize;
  const taken = queued.get(db) ?? new Set<string>();
  queued.set(db, taken);
  const fresh = starts.filter((start) => !taken.has(bucketName(lineId, start)));
  if (fresh.length === 0) return;
  for (const start of fresh) taken.add(bucketName(lineId, start));
  const job = (async () => {
    for (let at = 0; at < fresh.length; at += BUCKETS_PER_PACKING) {
      const batch = fresh.slice(at, at + BUCKETS_PER_PACKING);
      try {
        await db.transaction('rw', [db.messages, db.messagePacks], async () => {
          // A pack that is stored is current (writes drop theirs): only missing ones are made.
          const present = await db.messagePacks
            .where(':id')
            .anyOf(batch.map((start): [string, number] => [lineId, start]))
            .primaryKeys();
          const missing = batch.filter((start) => !present.some(([, stored]) => stored === start));
          const read = await Promise.all(
            missing.map((start) => readRows(db, lineId, start, start + size)),
          );
          const packs = missing.flatMap((start, index): MessagePackRow[] => {
            const rows = read[index] as MessageRow[];
            return isPackable(rows, lineId, start, size) ? [{ lineId, start, rows }] : [];
          });
          if (packs.length > 0) await db.messagePacks.bulkPut(packs);
        });
      } catch {
        // A pack is only a faster copy: without it, the rows are read one by one.
      } finally {
        for (const start of batch) taken.delete(bucketName(lineId, start));
      }
    }
  })();
  const jobs = packing.get(db) ?? new Set<Promise<void>>();
  packing.set(db, jobs);
  jobs.add(job);
  void job.finally(() => jobs.delete(job));
}

/** Resolves when the packing started so far on `db` has ended. */
export async function settlePacking(db: object): Promise<void> {
  for (let jobs = packing.get(db); jobs !== undefined && jobs.size > 0; jobs = packing.get(db))
    await Promise.all(jobs);
}

type PackKey = [string, number];

/**
 * Per transaction, where each message read or written in it sits now: the key of the pack
 * that would hold it, or null where there is no row (or it has no place). Only positions are
 * kept, copied when read, so a caller changing a row it was given cannot change them.
 */
const positions = new WeakMap<object, Map<string, PackKey | null>>();

function positionsOf(trans: object): Map<string, PackKey | null> {
  let known = positions.get(trans);
  if (known === undefined) {
    known = new Map();
    positions.set(trans, known);
  }
  return known;
}

function recordRows(
  trans: object,
  keys: readonly unknown[],
  rows: readonly unknown[],
  size: number,
) {
  const known = positionsOf(trans);
  keys.forEach((key, index) => {
    if (typeof key === 'string') known.set(key, packKeyOf(rows[index], size) ?? null);
  });
}

const ANY_RANGE = { type: 3 as DBCoreRangeType, lower: undefined, upper: undefined };

/** Per transaction: the buckets that settled messages it wrote end, packed once it commits. */
const endedBuckets = new WeakMap<object, Map<string, PackKey>>();

/**
 * Notes the buckets that the settled messages among `values` end (the message at a bucket's
 * last depth): the bucket may be whole now, so it is packed when the transaction commits. So
 * chats saved by the store, imported or synced are packed as they are written.
 */
function noteEndedBuckets(db: PackDb, trans: object, values: readonly unknown[]): void {
  const size = db.messagePackSize;
  for (const value of values) {
    if (typeof value !== 'object' || value === null) continue;
    const position = readPosition(value);
    const { status } = value as { status?: unknown };
    if (position === undefined || status === 'streaming' || (position.depth + 1) % size !== 0)
      continue;
    let ended = endedBuckets.get(trans);
    if (ended === undefined) {
      const buckets = new Map<string, PackKey>();
      ended = buckets;
      endedBuckets.set(trans, buckets);
      (trans as Partial<EventTarget>).addEventListener?.('complete', () => {
        const byLine = new Map<string, number[]>();
        for (const [lineId, start] of buckets.values())
          byLine.set(lineId, [...(byLine.get(lineId) ?? []), start]);
        for (const [lineId, starts] of byLine) schedulePacking(db, lineId, starts);
      });
    }
    const start = position.depth + 1 - size;
    ended.set(bucketName(position.lineId, start), [position.lineId, start]);
  }
}

/**
 * Drops, in the write's transaction, the packs holding the rows a write to `messages` replaces
 * or deletes, where they sat before it. A pack covering the place a row is written to needs no
 * drop: the rows it copies did not change, and the walk checks every parent link, so a row it
 * does not hold only costs a keyed read. A range delete (clearing the table) drops every pack.
 *
 * Where a row sat is known without a read when the transaction read or wrote it already (the
 * message store reads a message before saving it); the others are read in the same breath as
 * the write: requests in one transaction run in the order they are made, so that read sees the
 * rows as they were. Saving a new message thus costs nothing more, and updating one a delete.
 */
async function mutateMessages(
  db: PackDb,
  down: DBCore,
  table: DBCoreTable,
  req: DBCoreMutateRequest,
): Promise<DBCoreMutateResponse> {
  const size = db.messagePackSize;
  const trans = req.trans as { mode?: string };
  // Schema upgrades run before the packs table exists, or rewrite rows packs never copied.
  if (trans.mode === 'versionchange') return table.mutate(req);
  const packs = down.table(MESSAGE_PACKS_TABLE);
  if (req.type === 'deleteRange') {
    positions.delete(req.trans);
    const [response] = await Promise.all([
      table.mutate(req),
      packs.mutate({ type: 'deleteRange', trans: req.trans, range: ANY_RANGE }),
    ]);
    return response;
  }
  const keys = namedKeys(table, req) ?? [];
  const known = positionsOf(req.trans);
  // An add replaces nothing; a put or delete may replace a row that a pack copies.
  const unknown =
    req.type === 'add' ? [] : keys.filter((key) => typeof key !== 'string' || !known.has(key));
  const stale = new Map<string, PackKey>();
  const addStale = (key: PackKey | null | undefined) => {
    if (key !== null && key !== undefined) stale.set(bucketName(key[0], key[1]), key);
  };
  if (req.type !== 'add')
    for (const key of keys) if (typeof key === 'string') addStale(known.get(key));
  const [rows, response] = await Promise.all([
    unknown.length === 0 ? undefined : table.getMany({ trans: req.trans, keys: unknown }),
    table.mutate(req),
  ]);
  for (const row of rows ?? []) addStale(packKeyOf(row, size));
  recordRows(req.trans, keys, req.type === 'delete' ? [] : req.values, size);
  if (req.type !== 'delete') noteEndedBuckets(db, req.trans, req.values);
  if (stale.size > 0)
    await packs.mutate({ type: 'delete', trans: req.trans, keys: [...stale.values()] });
  return response;
}

/**
 * The middleware: every read-write transaction on `messages` also opens `messagePacks`, every
 * write to `messages` drops the packs it makes stale, and a settled message that ends a bucket
 * has it packed once written.
 */
export function createMessagePacking(db: PackDb): Middleware<DBCore> {
  const size = db.messagePackSize;
  return {
    stack: 'dbcore',
    name: 'carrel-message-packs',
    // Above change tracking (-2), under Dexie's own layers, as tracking is: what Dexie does above
    // reaches here as plain key-by-key requests, and awaiting inside `mutate` is safe.
    level: -1,
    create(down) {
      return {
        ...down,
        transaction(stores, mode, options) {
          const isWrite =
            mode === 'readwrite' &&
            stores.includes(MESSAGES_TABLE) &&
            !stores.includes(MESSAGE_PACKS_TABLE);
          return down.transaction(
            isWrite ? [...stores, MESSAGE_PACKS_TABLE] : stores,
            mode,
            options,
          );
        },
        table(name) {
          const table = down.table(name);
          if (name !== MESSAGES_TABLE) return table;
          return {
            ...table,
            get: async (req) => {
              const row: unknown = await table.get(req);
              recordRows(req.trans, [req.key], [row], size);
              return row;
            },
            getMany: async (req) => {
              const rows: unknown[] = await table.getMany(req);
              recordRows(req.trans, req.keys, rows, size);
              return rows;
            },
            mutate: (req) => mutateMessages(db, down, table, req),
          };
        },
      };
    },
  };
}
