/** Devices for sync tests: each its own fake-indexeddb database, stores and sync engine. */
import { createStores, type CarrelStores } from '../../../../src/storage';
import type { CarrelDb } from '../../../../src/storage/db';
import { createSyncStore, type SyncStore } from '../../../../src/storage/sync/sync.store';
import { SYNCED_TABLES, toSyncedBody } from '../../../../src/storage/sync/synced-tables';
import {
  createSyncEngine,
  type SyncEngine,
  type SyncSettings,
} from '../../../../src/workers/sync/sync-engine';
import {
  createFrozenClock,
  createSequentialIds,
  openTestDb,
  type FrozenClock,
} from '../../storage/storage-fixtures';

export interface Replica {
  name: string;
  db: CarrelDb;
  clock: FrozenClock;
  stores: CarrelStores;
  sync: SyncStore;
  engine: SyncEngine;
}

export async function openReplica(
  name: string,
  options: {
    kdfIterations?: number;
    start?: number;
    fetch?: typeof fetch;
    sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  } = {},
): Promise<Replica> {
  const clock = createFrozenClock(options.start);
  const db = await openTestDb({ now: () => clock.now() });
  const sync = createSyncStore(db);
  return {
    name,
    db,
    clock,
    stores: createStores(db, clock, createSequentialIds(name)),
    sync,
    engine: createSyncEngine({
      store: sync,
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
      now: () => clock.now(),
      ...(options.kdfIterations === undefined ? {} : { kdfIterations: options.kdfIterations }),
      ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
    }),
  };
}

export function syncSettings(
  url: string,
  database: string,
  extra: Partial<SyncSettings> = {},
): SyncSettings {
  return { serverUrl: url, database, username: '', password: '', shouldSyncKeys: false, ...extra };
}

/** Two devices connected to `database` on the server at `url` (not live: tests sync by hand). */
export async function connectPair(
  url: string,
  database: string,
  passphrase: string,
  options: { kdfIterations?: number } = {},
): Promise<{ a: Replica; b: Replica; database: string }> {
  const a = await openReplica('a', options);
  const b = await openReplica('b', { ...options, start: 1_700_000_000_500 });
  await a.engine.connect(syncSettings(url, database), passphrase, { isLive: false });
  await b.engine.connect(syncSettings(url, database), passphrase, { isLive: false });
  return { a, b, database };
}

/** Every synced row, without the fields each device keeps for itself, sorted: comparable across devices. */
export async function readSyncedState(db: CarrelDb): Promise<Record<string, unknown[]>> {
  const state: Record<string, unknown[]> = {};
  for (const table of SYNCED_TABLES) {
    const rows = (await db.table(table).toArray()) as Record<string, unknown>[];
    state[table] = rows
      .map((row) => toSyncedBody(table, row))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return state;
}

/** Syncs the replicas round-robin until a whole round moves nothing: they have converged. */
export async function syncUntilQuiet(replicas: readonly Replica[], maxRounds = 6): Promise<void> {
  for (let round = 0; round < maxRounds; round++) {
    for (const replica of replicas) await replica.engine.syncNow();
    const pending = await Promise.all(replicas.map((replica) => replica.sync.countPending()));
    if (pending.every((count) => count === 0)) {
      // One more pass so everyone has pulled the last pushes.
      for (const replica of replicas) await replica.engine.syncNow();
      return;
    }
  }
  throw new Error('The replicas did not settle.');
}
