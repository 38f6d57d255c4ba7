/** Shared helpers for storage tests: a fresh isolated database, frozen time, sequential ids. */
import type { DBCore, DBCoreTable } from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import {
  asMessageId,
  asSessionId,
  type AssistantMessage,
  type Session,
  type UserMessage,
} from '../../../src/core/model';
import type { Clock, Ids } from '../../../src/core/ports';
import { openCarrelDb, type CarrelDb, type OpenCarrelDbOptions } from '../../../src/storage/db';

let databaseCounter = 0;

/** Each call gets its own IndexedDB factory, so tests never see each other's data. */
export function createTestIndexedDb() {
  return { indexedDB: new IDBFactory(), IDBKeyRange };
}

export async function openTestDb(
  options: Omit<OpenCarrelDbOptions, 'dexie'> = {},
): Promise<CarrelDb> {
  databaseCounter += 1;
  return openCarrelDb(`carrel-test-${databaseCounter}`, {
    ...options,
    dexie: createTestIndexedDb(),
  });
}

export interface FrozenClock extends Clock {
  advance(ms: number): void;
}

export function createFrozenClock(start = 1_700_000_000_000): FrozenClock {
  let now = start;
  return {
    now: () => now,
    timeZone: () => 'UTC',
    advance: (ms) => {
      now += ms;
    },
  };
}

export function createSequentialIds(prefix = 'id'): Ids {
  let next = 0;
  return {
    newId: () => {
      next += 1;
      return `${prefix}-${next}`;
    },
  };
}

export function buildSession(overrides: Partial<Session> = {}): Session {
  return {
    id: asSessionId('s1'),
    title: 'A chat',
    projectId: null,
    agentId: null,
    models: [],
    currentLeafId: null,
    isPinned: false,
    isArchived: false,
    createdAt: 1,
    updatedAt: 1,
    version: 0,
    ...overrides,
  };
}

export function buildUserMessage(
  id: string,
  parentId: string | null,
  overrides: Partial<UserMessage> = {},
): UserMessage {
  return {
    id: asMessageId(id),
    sessionId: asSessionId('s1'),
    parentId: parentId === null ? null : asMessageId(parentId),
    role: 'user',
    text: `question ${id}`,
    textTokenCount: 3,
    attachments: [],
    createdAt: 10,
    updatedAt: 10,
    isPinned: false,
    isExcluded: false,
    ...overrides,
  };
}

export function buildAssistantMessage(
  id: string,
  parentId: string | null,
  overrides: Partial<AssistantMessage> = {},
): AssistantMessage {
  return {
    id: asMessageId(id),
    sessionId: asSessionId('s1'),
    parentId: parentId === null ? null : asMessageId(parentId),
    role: 'assistant',
    steps: [{ text: `answer ${id}`, textTokenCount: 4, toolCalls: [] }],
    status: 'complete',
    citations: [],
    createdAt: 20,
    updatedAt: 20,
    isPinned: false,
    isExcluded: false,
    ...overrides,
  };
}

/**
 * Records every low-level operation Dexie sends to IndexedDB, per table (writes as
 * `table.put`, `table.delete`…). Install it before the database opens: Dexie builds its
 * middleware stack then. At the default level it sees what Dexie asks of the app's middlewares;
 * below -2 it sees what they ask of IndexedDB in turn.
 */
export function recordOperations(db: CarrelDb, level = 0): string[] {
  const operations: string[] = [];
  db.use({
    stack: 'dbcore',
    name: 'record-operations',
    level,
    create: (down: DBCore): DBCore => ({
      ...down,
      table: (name: string): DBCoreTable => {
        const table = down.table(name);
        return {
          ...table,
          get: (request) => (operations.push(`${name}.get`), table.get(request)),
          getMany: (request) => (operations.push(`${name}.getMany`), table.getMany(request)),
          query: (request) => (operations.push(`${name}.query`), table.query(request)),
          openCursor: (request) => (
            operations.push(`${name}.openCursor`),
            table.openCursor(request)
          ),
          count: (request) => (operations.push(`${name}.count`), table.count(request)),
          mutate: (request) => (operations.push(`${name}.${request.type}`), table.mutate(request)),
        };
      },
    }),
  });
  return operations;
}
