import { Dexie } from 'dexie';
import {
  asMessageId,
  asSessionId,
  type ChatMessageSimple,
  type Session,
} from '../../../src/core/model';
// As in the app's entry points: zod runs jitless under the strict CSP, so parse costs match.
import '../../../src/boot/strict-csp';
import { createStores, openCarrelDb } from '../../../src/storage';
import type { MessageRow } from '../../../src/storage/db';
import { placeRows } from '../../../src/storage/message-lines';
import { settlePacking } from '../../../src/storage/message-packs';
import { createSyncStore } from '../../../src/storage/sync/sync.store';
import { fromMessageRow, toMessageRow } from '../../../src/storage/message-rows';
import { buildChatMessages } from '../lib/chat-messages';
import { createRandom, summarizeSamples, type Spread } from '../lib/stats';
import { createProse } from '../lib/synthetic-text';

/**
 * Bench 4 in Chromium's real IndexedDB through the app's own stores (src/storage): writing a
 * 10,000-message session, loading its chain, listing 1,000 sessions — each next to Dexie's bulk
 * call on the same rows, the floor for that amount of data.
 */

const START = Date.parse('2026-11-20T09:00:00Z');
const CHAIN_LOADS = 5;
/** Rounds of the change-tracking comparison; each writes a batch to both databases in turn. */
const TRACKING_ROUNDS = 6;
const LIST_LOADS = 5;
/** The conversion takes milliseconds: more runs, so a pause for garbage collection does not set the median. */
const CONVERT_RUNS = 25;

function buildSession(id: string, leaf: string | null, index: number): Session {
  return {
    id: asSessionId(id),
    title: `Session ${index}`,
    projectId: null,
    agentId: null,
    models: [],
    currentLeafId: leaf === null ? null : asMessageId(leaf),
    isPinned: false,
    isArchived: false,
    createdAt: START + index,
    updatedAt: START + index,
    version: 0,
  };
}

function buildMessages(sessionId: string, count: number): ChatMessageSimple[] {
  const random = createRandom(count);
  return buildChatMessages(sessionId, count, START, (index) =>
    createProse(random, index % 2 === 0 ? 30 : 120),
  );
}

async function timeAsync(task: () => Promise<unknown>, runs: number): Promise<Spread> {
  const samples: number[] = [];
  for (let index = 0; index < runs; index++) {
    const start = performance.now();
    await task();
    samples.push(performance.now() - start);
  }
  return summarizeSamples(samples);
}

/** What change tracking adds to a write: the same writes with and without its middleware. */
export interface TrackingFigures {
  messagesPerRound: number;
  /** Milliseconds per message.put, one sample per round. */
  trackedMsPerWrite: Spread;
  untrackedMsPerWrite: Spread;
}

/**
 * Writes the same messages one by one (stores.messages.put, one transaction each) to two fresh
 * databases of the app, one where sync has been set up (so change tracking has started) and one
 * where it has not (a device that never syncs), alternating rounds so both see the same load.
 */
async function measureTracking(messagesPerRound: number): Promise<TrackingFigures> {
  const clock = { now: () => Date.now(), timeZone: () => 'UTC' };
  let next = 0;
  const ids = { newId: () => `id-${next++}` };
  const tracked = await openCarrelDb(`carrel-bench-tracked-${Date.now()}`);
  await createSyncStore(tracked).deviceId();
  const untracked = await openCarrelDb(`carrel-bench-untracked-${Date.now()}`);
  const sides = [
    { stores: createStores(tracked, clock, ids), samples: [] as number[] },
    { stores: createStores(untracked, clock, ids), samples: [] as number[] },
  ];
  const sessionId = 'bench-tracking';
  const messages = buildMessages(sessionId, messagesPerRound * TRACKING_ROUNDS);
  for (const side of sides) await side.stores.sessions.create(buildSession(sessionId, null, 0));
  for (let round = 0; round < TRACKING_ROUNDS; round++) {
    const batch = messages.slice(round * messagesPerRound, (round + 1) * messagesPerRound);
    // Which side goes first alternates, so neither always writes to a warmer page.
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const start = performance.now();
      for (const message of batch) await side.stores.messages.put(message);
      side.samples.push((performance.now() - start) / batch.length);
    }
  }
  if ((await untracked.syncRecords.count()) !== 0)
    throw new Error('The database without sync recorded changes: tracking started by itself.');
  if ((await tracked.syncRecords.count()) < messages.length)
    throw new Error('The tracked database did not record every write.');
  tracked.close();
  untracked.close();
  return {
    messagesPerRound,
    trackedMsPerWrite: summarizeSamples(sides[0]?.samples ?? []),
    untrackedMsPerWrite: summarizeSamples(sides[1]?.samples ?? []),
  };
}

export interface StorageFigures {
  messageCount: number;
  writeMs: number;
  bulkWriteMs: number;
  /** loadChain once the chain's packs are made (every load after its first). */
  chainLoad: Spread;
  /** loadChain of a chain none of whose messages is packed yet. */
  firstChainLoad: Spread;
  /** The packing a first load starts, until it ends. */
  packing: Spread;
  bulkRead: Spread;
  /** fromMessageRow over the rows of the indexed read: the zod check and copy into messages. */
  convertRows: Spread;
  loadedLength: number;
  sessionCount: number;
  listSessions: Spread;
}

async function measureStorage(messageCount: number, sessionCount: number): Promise<StorageFigures> {
  const clock = { now: () => Date.now(), timeZone: () => 'UTC' };
  let next = 0;
  const ids = { newId: () => `id-${next++}` };
  const db = await openCarrelDb(`carrel-bench-${Date.now()}`);
  const stores = createStores(db, clock, ids);

  const sessionId = 'bench-session';
  const messages = buildMessages(sessionId, messageCount);
  await stores.sessions.create(buildSession(sessionId, null, 0));
  const writeStart = performance.now();
  for (const message of messages) await stores.messages.put(message);
  const writeMs = performance.now() - writeStart;

  const copyId = 'bench-bulk';
  const rows = placeRows([], buildMessages(copyId, messageCount).map(toMessageRow));
  const bulkStart = performance.now();
  await db.messages.bulkPut(rows);
  const bulkWriteMs = performance.now() - bulkStart;

  // First loads: each of a few chains written in bulk (the same rows) is loaded once, with none
  // of its messages packed; the time packing then takes in the background.
  const firstLoadSamples: number[] = [];
  const packingSamples: number[] = [];
  for (let run = 0; run < CHAIN_LOADS; run++) {
    const copy = `bench-first-${run}`;
    const copyRows = placeRows([], buildMessages(copy, messageCount).map(toMessageRow));
    await db.messages.bulkPut(copyRows);
    // Those writes pack the copy as they end buckets: its packs are taken out again, so the
    // chain is as a database from before packs holds it.
    await settlePacking(db);
    const copyLine = copyRows[0]?.lineId ?? '';
    await db.messagePacks
      .where(':id')
      .between([copyLine, Dexie.minKey], [copyLine, Dexie.maxKey])
      .delete();
    const copyLeaf = asMessageId(copyRows[copyRows.length - 1]?.id ?? 'none');
    const start = performance.now();
    const loaded = await stores.messages.loadChain(copyLeaf);
    firstLoadSamples.push(performance.now() - start);
    if (loaded.length !== messageCount) throw new Error(`first load read ${loaded.length} rows`);
    const packStart = performance.now();
    await settlePacking(db);
    packingSamples.push(performance.now() - packStart);
    // Gone again, so the figures below see the database they always saw.
    await db.messages.where('sessionId').equals(copy).delete();
  }
  const orphans = await db.messagePacks
    .filter((pack) => pack.lineId.startsWith('bench-first-'))
    .count();
  if (orphans !== 0) throw new Error('Packs outlived their messages.');

  const leaf = messages[messages.length - 1]?.id ?? asMessageId('none');
  let loadedLength = 0;
  // Every later load of a chain reads its packs: one load packs it, then the runs are timed.
  await stores.messages.loadChain(leaf);
  await settlePacking(db);
  const chainLoad = await timeAsync(async () => {
    loadedLength = (await stores.messages.loadChain(leaf)).length;
  }, CHAIN_LOADS);
  let rowsRead: MessageRow[] = [];
  const bulkRead = await timeAsync(async () => {
    rowsRead = await db.messages.where('sessionId').equals(sessionId).toArray();
  }, CHAIN_LOADS);
  const convertRows = await timeAsync(
    () => Promise.resolve(rowsRead.map(fromMessageRow)),
    CONVERT_RUNS,
  );

  await db.sessions.bulkPut(
    Array.from({ length: sessionCount }, (_, index) => buildSession(`s-${index}`, null, index + 1)),
  );
  const listSessions = await timeAsync(() => stores.sessions.list(), LIST_LOADS);
  db.close();
  return {
    messageCount,
    writeMs,
    bulkWriteMs,
    chainLoad,
    firstChainLoad: summarizeSamples(firstLoadSamples),
    packing: summarizeSamples(packingSamples),
    bulkRead,
    convertRows,
    loadedLength,
    sessionCount: sessionCount + 1,
    listSessions,
  };
}

Object.assign(globalThis, {
  benchReady: true,
  runStorage: measureStorage,
  runTracking: measureTracking,
});
