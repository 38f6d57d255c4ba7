import { describe, expect, it } from 'vitest';
import { asMessageId } from '../../../src/core/model';
import { CarrelDb } from '../../../src/storage/db';
import { placeRows } from '../../../src/storage/message-lines';
import { settlePacking } from '../../../src/storage/message-packs';
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
  recordOperations,
} from './storage-fixtures';

async function openSessionWithStores() {
  const db = await openTestDb();
  const clock = createFrozenClock();
  const sessions = createSessionStore(db, clock);
  await sessions.create(buildSession());
  return { db, sessions, messages: createMessageStore(db, clock) };
}

describe('message tree', () => {
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
    // The packing those writes start is not part of the walk.
    await settlePacking(db);
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
});
