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
const LIST_LOADS = 5;

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

export interface StorageFigures {
  messageCount: number;
  writeMs: number;
  bulkWriteMs: number;
  chainLoad: Spread;
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

  const leaf = messages[messages.length - 1]?.id ?? asMessageId('none');
  let loadedLength = 0;
  const chainLoad = await timeAsync(async () => {
    loadedLength = (await stores.messages.loadChain(leaf)).length;
  }, CHAIN_LOADS);
  let rowsRead: MessageRow[] = [];
  const bulkRead = await timeAsync(async () => {
    rowsRead = await db.messages.where('sessionId').equals(sessionId).toArray();
  }, CHAIN_LOADS);
  const convertRows = await timeAsync(
    () => Promise.resolve(rowsRead.map(fromMessageRow)),
    CHAIN_LOADS,
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
    bulkRead,
    convertRows,
    loadedLength,
    sessionCount: sessionCount + 1,
    listSessions,
  };
}

Object.assign(globalThis, { benchReady: true, runStorage: measureStorage });
