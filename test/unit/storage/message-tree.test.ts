import type { DBCore, DBCoreTable } from 'dexie';
import { describe, expect, it } from 'vitest';
import { asMessageId, asSessionId } from '../../../src/core/model';
import { CarrelDb } from '../../../src/storage/db';
import { placeRows } from '../../../src/storage/message-lines';
import { toMessageRow } from '../../../src/storage/message-rows';
import { createMessageStore } from '../../../src/storage/message.store';
import { createSessionStore } from '../../../src/storage/session.store';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  createTestIndexedDb,
  openTestDb,
} from './storage-fixtures';

async function openSessionWithStores() {
  const db = await openTestDb();
  const clock = createFrozenClock();
  const sessions = createSessionStore(db, clock);
  await sessions.create(buildSession());
  return { db, sessions, messages: createMessageStore(db, clock) };
}

/** Records every low-level operation Dexie sends to IndexedDB, per table. */
function recordOperations(db: CarrelDb): string[] {
  const operations: string[] = [];
  db.use({
    stack: 'dbcore',
    name: 'record-operations',
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
        };
      },
    }),
  });
  return operations;
}

describe('message tree', () => {
  it('makes each newly saved message the current leaf and bumps the session version', async () => {
    const { sessions, messages } = await openSessionWithStores();
    await messages.put(buildUserMessage('u1', null));
    await messages.put(buildAssistantMessage('a1', 'u1', { status: 'streaming' }));
    expect(await sessions.get(asSessionId('s1'))).toMatchObject({
      currentLeafId: 'a1',
      version: 2,
    });
    await messages.put(buildAssistantMessage('a1', 'u1', { status: 'complete' }));
    expect(await sessions.get(asSessionId('s1'))).toMatchObject({
      currentLeafId: 'a1',
      version: 3,
    });
    expect((await messages.loadVisibleChain(asSessionId('s1'))).map((m) => m.id)).toEqual([
      'u1',
      'a1',
    ]);
  });

  it('refuses a message for a session that does not exist', async () => {
    const { messages } = await openSessionWithStores();
    await expect(
      messages.put(buildUserMessage('u1', null, { sessionId: asSessionId('ghost') })),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(await messages.get(asMessageId('u1'))).toBeUndefined();
  });

  it('turns an edited user message into a sibling that becomes the visible branch', async () => {
    const { messages } = await openSessionWithStores();
    await messages.put(buildUserMessage('u1', null));
    await messages.put(buildAssistantMessage('a1', 'u1'));
    await messages.put(buildUserMessage('u2', 'a1', { createdAt: 30 }));
    await messages.put(buildAssistantMessage('a2', 'u2', { createdAt: 40 }));
    await messages.put(
      buildUserMessage('u2-edit', 'a1', { text: 'better question', createdAt: 50 }),
    );
    await messages.put(buildAssistantMessage('a2-edit', 'u2-edit', { createdAt: 60 }));

    expect((await messages.loadVisibleChain(asSessionId('s1'))).map((m) => m.id)).toEqual([
      'u1',
      'a1',
      'u2-edit',
      'a2-edit',
    ]);
    expect(await messages.siblings(asMessageId('u2-edit'))).toEqual({
      index: 1,
      count: 2,
      ids: ['u2', 'u2-edit'],
    });
    expect(await messages.siblings(asMessageId('u1'))).toEqual({ index: 0, count: 1, ids: ['u1'] });
    expect(
      (await messages.children(asSessionId('s1'), asMessageId('a1'))).map((m) => m.id),
    ).toEqual(['u2', 'u2-edit']);
    expect((await messages.children(asSessionId('s1'), null)).map((m) => m.id)).toEqual(['u1']);
  });

  it('switches to a branch by following the newest child down to a leaf', async () => {
    const { sessions, messages } = await openSessionWithStores();
    await messages.put(buildUserMessage('u1', null));
    await messages.put(buildAssistantMessage('a1', 'u1', { createdAt: 20 }));
    await messages.put(buildUserMessage('u2', 'a1', { createdAt: 30 }));
    // Two regenerations of the answer to u1: a1 (with a follow-up), then a1b, then a1c.
    await messages.put(buildAssistantMessage('a1b', 'u1', { createdAt: 40 }));
    await messages.put(buildAssistantMessage('a1c', 'u1', { createdAt: 50 }));
    // Under a1, a newer follow-up than u2 with its own answer.
    await messages.put(buildUserMessage('u2b', 'a1', { createdAt: 60 }));
    await messages.put(buildAssistantMessage('a2b', 'u2b', { createdAt: 70 }));
    await messages.switchBranch(asMessageId('a1c'));
    const before = await sessions.get(asSessionId('s1'));

    const leaf = await messages.switchBranch(asMessageId('a1'));

    expect(leaf).toBe('a2b');
    const after = await sessions.get(asSessionId('s1'));
    expect(after?.currentLeafId).toBe('a2b');
    expect(after?.version).toBe((before?.version ?? 0) + 1);
    expect((await messages.loadVisibleChain(asSessionId('s1'))).map((m) => m.id)).toEqual([
      'u1',
      'a1',
      'u2b',
      'a2b',
    ]);
    expect(await messages.siblings(asMessageId('a1'))).toEqual({
      index: 0,
      count: 3,
      ids: ['a1', 'a1b', 'a1c'],
    });
    expect(await messages.switchBranch(asMessageId('a1c'))).toBe('a1c');
  });

  it('lists the messages left streaming by a closed tab', async () => {
    const { messages } = await openSessionWithStores();
    await messages.put(buildUserMessage('u1', null));
    await messages.put(buildAssistantMessage('a1', 'u1', { status: 'streaming' }));
    await messages.put(buildAssistantMessage('a2', 'u1', { status: 'stopped' }));
    expect((await messages.listStreaming()).map((m) => m.id)).toEqual(['a1']);
  });

  it('loads a 10-message chain out of a 10,000-message session with one keyed and one range read', async () => {
    const db = new CarrelDb('chain-walk', createTestIndexedDb());
    const operations = recordOperations(db);
    await db.open();
    const clock = createFrozenClock();
    await createSessionStore(db, clock).create(buildSession());
    const rows = [];
    for (let i = 0; i < 10_000; i += 1) {
      // Message i hangs under i - 10, so the session is 10 long, parallel branches.
      const parent = i < 10 ? null : `m${i - 10}`;
      const id = `m${i}`;
      rows.push(
        toMessageRow(
          i % 2 === 0 ? buildUserMessage(id, parent) : buildAssistantMessage(id, parent),
        ),
      );
    }
    await db.messages.bulkAdd(placeRows([], rows));
    const messages = createMessageStore(db, clock);
    operations.length = 0;

    const chain = await messages.loadChain(asMessageId('m93'));

    expect(chain.map((m) => m.id)).toEqual([
      'm3',
      'm13',
      'm23',
      'm33',
      'm43',
      'm53',
      'm63',
      'm73',
      'm83',
      'm93',
    ]);
    expect(operations.filter((op) => op.startsWith('messages.'))).toEqual([
      'messages.get',
      'messages.query',
    ]);
  });

  it('reads one more line for each fork on the way up, not one more message', async () => {
    const db = new CarrelDb('chain-forks', createTestIndexedDb());
    const operations = recordOperations(db);
    await db.open();
    const clock = createFrozenClock();
    await createSessionStore(db, clock).create(buildSession());
    const messages = createMessageStore(db, clock);
    let count = 0;
    const add = async (id: string, parent: string | null, createdAt: number) => {
      const build = count++ % 2 === 0 ? buildUserMessage : buildAssistantMessage;
      await messages.put(build(id, parent, { createdAt }));
    };
    for (let i = 0; i < 40; i += 1) await add(`m${i}`, i === 0 ? null : `m${i - 1}`, i);
    // A regenerated answer under m8 with its own follow-ups, then an edit under r19: two forks.
    await add('r9', 'm8', 100);
    for (let i = 10; i < 30; i += 1) await add(`r${i}`, `r${i - 1}`, 100 + i);
    await add('e20', 'r19', 200);
    await add('e21', 'e20', 201);
    operations.length = 0;

    const chain = await messages.loadChain(asMessageId('e21'));

    expect(chain.map((m) => m.id)).toEqual([
      ...Array.from({ length: 9 }, (_, i) => `m${i}`),
      ...Array.from({ length: 11 }, (_, i) => `r${i + 9}`),
      'e20',
      'e21',
    ]);
    // Three lines (m…, r…, e…): a keyed read where the walk enters each, a range read above it.
    expect(operations.filter((op) => op.startsWith('messages.'))).toEqual(
      Array<string[]>(3).fill(['messages.get', 'messages.query']).flat(),
    );
  });

  it('reports a broken parent link as not_found rather than returning a partial chain', async () => {
    const { db, messages } = await openSessionWithStores();
    await messages.put(buildUserMessage('u1', null));
    await messages.put(buildAssistantMessage('a1', 'u1'));
    await db.messages.delete('u1');
    await expect(messages.loadChain(asMessageId('a1'))).rejects.toMatchObject({
      code: 'not_found',
    });
  });
  it('deletes a message with all its descendants and moves the leaf to the newest remaining branch', async () => {
    const { sessions, messages } = await openSessionWithStores();
    await messages.put(buildUserMessage('u1', null, { createdAt: 10 }));
    await messages.put(buildAssistantMessage('a1', 'u1', { createdAt: 20 }));
    await messages.put(buildAssistantMessage('a1b', 'u1', { createdAt: 30 }));
    await messages.put(buildUserMessage('u2', 'a1b', { createdAt: 40 }));
    await messages.put(buildAssistantMessage('a2', 'u2', { createdAt: 50 }));
    // An older follow-up under a1, so the leaf has somewhere deeper to land than a1 itself.
    await messages.put(buildUserMessage('u2a', 'a1', { createdAt: 35 }));
    await messages.switchBranch(asMessageId('a2'));
    const before = await sessions.get(asSessionId('s1'));

    const leaf = await messages.deleteBranch(asMessageId('a1b'));

    expect(leaf).toBe('u2a');
    for (const id of ['a1b', 'u2', 'a2'])
      expect(await messages.get(asMessageId(id))).toBeUndefined();
    const after = await sessions.get(asSessionId('s1'));
    expect(after).toMatchObject({ currentLeafId: 'u2a', version: (before?.version ?? 0) + 1 });
    expect((await messages.loadVisibleChain(asSessionId('s1'))).map((m) => m.id)).toEqual([
      'u1',
      'a1',
      'u2a',
    ]);
  });

  it('moves the leaf to the parent itself when the deleted answer had no siblings', async () => {
    const { sessions, messages } = await openSessionWithStores();
    await messages.put(buildUserMessage('u1', null, { createdAt: 10 }));
    await messages.put(buildAssistantMessage('a1', 'u1', { createdAt: 20 }));

    expect(await messages.deleteBranch(asMessageId('a1'))).toBe('u1');
    expect((await sessions.get(asSessionId('s1')))?.currentLeafId).toBe('u1');
  });

  it('empties the session when the only first question is deleted', async () => {
    const { sessions, messages } = await openSessionWithStores();
    await messages.put(buildUserMessage('u1', null, { createdAt: 10 }));
    await messages.put(buildAssistantMessage('a1', 'u1', { createdAt: 20 }));

    expect(await messages.deleteBranch(asMessageId('u1'))).toBeNull();
    expect((await sessions.get(asSessionId('s1')))?.currentLeafId).toBeNull();
    expect(await messages.loadVisibleChain(asSessionId('s1'))).toEqual([]);
    expect(await messages.children(asSessionId('s1'), null)).toEqual([]);
  });

  it('keeps the visible branch when deleting a branch the user is not looking at', async () => {
    const { sessions, messages } = await openSessionWithStores();
    await messages.put(buildUserMessage('u1', null, { createdAt: 10 }));
    await messages.put(buildAssistantMessage('a1', 'u1', { createdAt: 20 }));
    await messages.put(buildAssistantMessage('a1b', 'u1', { createdAt: 30 }));

    expect(await messages.deleteBranch(asMessageId('a1'))).toBe('a1b');
    expect((await sessions.get(asSessionId('s1')))?.currentLeafId).toBe('a1b');
    expect(await messages.siblings(asMessageId('a1b'))).toEqual({
      index: 0,
      count: 1,
      ids: ['a1b'],
    });
  });

  it('refuses to delete a message that does not exist', async () => {
    const { messages } = await openSessionWithStores();
    await expect(messages.deleteBranch(asMessageId('ghost'))).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
