import type { DBCore, DBCoreTable } from 'dexie';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asMessageId, type ChatMessageSimple } from '../../../src/core/model';
import { CarrelDb, ROOT_PARENT_ID } from '../../../src/storage/db';
import { placeImportedRows, placeRows } from '../../../src/storage/message-lines';
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
  recordOperations,
} from './storage-fixtures';

const PACK_SIZE = 4;

function buildMessage(id: string, parentId: string | null, createdAt: number): ChatMessageSimple {
  return createdAt % 2 === 0
    ? buildUserMessage(id, parentId, { createdAt, updatedAt: createdAt })
    : buildAssistantMessage(id, parentId, { createdAt, updatedAt: createdAt });
}

let databases = 0;

/** `prepare` runs before the database opens: where a test adds a middleware of its own. */
async function openChat(packSize = PACK_SIZE, prepare: (db: CarrelDb) => void = () => {}) {
  const db = new CarrelDb(`packs-${++databases}`, createTestIndexedDb(), undefined, packSize);
  prepare(db);
  await db.open();
  const clock = createFrozenClock();
  await createSessionStore(db, clock).create(buildSession());
  return { db, messages: createMessageStore(db, clock) };
}

/** A straight chain m0 … m(count - 1), one message per write. */
async function writeChain(messages: ReturnType<typeof createMessageStore>, count: number) {
  for (let i = 0; i < count; i += 1)
    await messages.put(buildMessage(`m${i}`, i === 0 ? null : `m${i - 1}`, i));
}

/** The same chain written around the store in one batch, as an import writes it. */
async function writeChainInBulk(db: CarrelDb, count: number) {
  const rows = Array.from({ length: count }, (_, i) =>
    toMessageRow(buildMessage(`m${i}`, i === 0 ? null : `m${i - 1}`, i)),
  );
  await db.messages.bulkAdd(placeRows([], rows));
}

/** A chain as a database from before packs holds it: rows, and no pack. */
async function writeChainUnpacked(db: CarrelDb, count: number) {
  await writeChainInBulk(db, count);
  await settlePacking(db);
  await db.messagePacks.clear();
}

const ids = (chain: readonly ChatMessageSimple[]) => chain.map((message) => message.id);

describe('message packs', () => {
  it('packs a bucket once its last message is saved settled', async () => {
    const { db, messages } = await openChat();
    await writeChain(messages, 7);
    await settlePacking(db);
    expect((await db.messagePacks.toArray()).map((pack) => pack.start)).toEqual([0]);

    // The answer that ends the next bucket is saved streaming first: packed once complete.
    await messages.put(buildAssistantMessage('m7', 'm6', { status: 'streaming', createdAt: 7 }));
    await settlePacking(db);
    expect(await db.messagePacks.count()).toBe(1);
    await messages.put(buildAssistantMessage('m7', 'm6', { createdAt: 7 }));
    await settlePacking(db);
    expect((await db.messagePacks.toArray()).map((pack) => pack.start)).toEqual([0, 4]);
  });

  it('packs the buckets a batch of messages ends, once the batch is written', async () => {
    const { db, messages } = await openChat();
    await writeChainInBulk(db, 11);
    await settlePacking(db);
    expect((await db.messagePacks.toArray()).map((pack) => pack.start)).toEqual([0, 4]);
    expect(ids(await messages.loadChain(asMessageId('m10')))).toEqual(
      Array.from({ length: 11 }, (_, i) => `m${i}`),
    );
  });

  it('packs the whole buckets a chain load read, and later loads read those packs', async () => {
    const { db, messages } = await openChat();
    await writeChainUnpacked(db, 11);
    expect(await db.messagePacks.count()).toBe(0);

    const first = await messages.loadChain(asMessageId('m10'));
    await settlePacking(db);

    // Depths 0–3 and 4–7 are whole; 8–10 are not yet.
    expect((await db.messagePacks.toArray()).map((pack) => [pack.start, pack.rows.length])).toEqual(
      [
        [0, 4],
        [4, 4],
      ],
    );
    const second = await messages.loadChain(asMessageId('m10'));
    expect(second).toEqual(first);
    expect(ids(second)).toEqual(Array.from({ length: 11 }, (_, i) => `m${i}`));
  });

  it('reads a packed chain as the leaf, the packs, and the unpacked end', async () => {
    let operations: string[] = [];
    const { db, messages } = await openChat(PACK_SIZE, (db) => {
      operations = recordOperations(db);
    });
    await writeChain(messages, 11);
    await messages.loadChain(asMessageId('m10'));
    await settlePacking(db);
    operations.length = 0;

    await messages.loadChain(asMessageId('m10'));

    expect(operations.sort()).toEqual(['messagePacks.query', 'messages.get', 'messages.query']);

    // The end of a chain no longer than a pack is one range read, packs or not.
    operations.length = 0;
    const end = await messages.loadChainEnd(asMessageId('m10'), 5);
    expect(ids(end.messages)).toEqual(['m6', 'm7', 'm8', 'm9', 'm10']);
    expect(operations).toEqual(['messages.get', 'messages.query']);
  });

  it('does not pack again the bucket a chain ends with when its pack is stored', async () => {
    let operations: string[] = [];
    const { db, messages } = await openChat(PACK_SIZE, (db) => {
      operations = recordOperations(db, -3);
    });
    await writeChain(messages, 8);
    await settlePacking(db);
    expect((await db.messagePacks.toArray()).map((pack) => pack.start)).toEqual([0, 4]);
    operations.length = 0;

    // m7 ends the second bucket: the load reads its rows by range, and finds its pack stored.
    expect(ids(await messages.loadChain(asMessageId('m7')))).toHaveLength(8);
    await settlePacking(db);

    expect(operations.filter((op) => !op.startsWith('syncState.'))).toEqual([
      'messages.get',
      'messagePacks.query',
      'messages.query',
      // Packing asks which of its buckets have a pack, by key: no row is read or written.
      'messagePacks.openCursor',
    ]);
  });

  it('never serves a message older than the one stored, whoever wrote it', async () => {
    const { db, messages } = await openChat();
    await writeChain(messages, 12);
    await messages.loadChain(asMessageId('m11'));
    await settlePacking(db);
    expect(await db.messagePacks.count()).toBe(3);

    // Through the store: pinning an old message.
    const pinned = (await messages.get(asMessageId('m1'))) as ChatMessageSimple;
    await messages.put({ ...pinned, isPinned: true });
    // Around it: a raw update, in a transaction that does not name the packs.
    await db.transaction('rw', db.messages, () => db.messages.update('m5', { isExcluded: true }));
    // Only the two touched packs went.
    expect((await db.messagePacks.toArray()).map((pack) => pack.start)).toEqual([8]);

    const chain = await messages.loadChain(asMessageId('m11'));
    expect(chain.find((message) => message.id === 'm1')?.isPinned).toBe(true);
    expect(chain.find((message) => message.id === 'm5')?.isExcluded).toBe(true);
    // The load packed the two buckets again, as they are now.
    await settlePacking(db);
    const packs = await db.messagePacks.toArray();
    expect(packs.map((pack) => pack.start)).toEqual([0, 4, 8]);
    expect(packs[0]?.rows[1]?.isPinned).toBe(true);
  });

  it('drops the packs of deleted messages and of a cleared table', async () => {
    const { db, messages } = await openChat();
    await writeChain(messages, 12);
    await messages.loadChain(asMessageId('m11'));
    await settlePacking(db);

    await messages.deleteBranch(asMessageId('m6'));
    expect((await db.messagePacks.toArray()).map((pack) => pack.start)).toEqual([0]);
    expect(ids(await messages.loadChain(asMessageId('m5')))).toEqual(
      Array.from({ length: 6 }, (_, i) => `m${i}`),
    );
    await expect(messages.loadChain(asMessageId('m11'))).rejects.toMatchObject({
      code: 'not_found',
    });

    await db.messages.clear();
    expect(await db.messagePacks.count()).toBe(0);
  });

  it('drops the packs an import replaces rows of', async () => {
    const { db, messages } = await openChat();
    await writeChain(messages, 8);
    await messages.loadChain(asMessageId('m7'));
    await settlePacking(db);
    expect(await db.messagePacks.count()).toBe(2);

    const newer = { ...buildMessage('m2', 'm1', 2), text: 'edited on another device' };
    await db.transaction('rw', db.messages, async () => {
      await db.messages.bulkPut(await placeImportedRows(db, [toMessageRow(newer)]));
    });

    const chain = await messages.loadChain(asMessageId('m7'));
    expect(chain[2]).toMatchObject({ id: 'm2', text: 'edited on another device' });
  });

  it('drops the pack of a row an import moves under another parent', async () => {
    const { db, messages } = await openChat();
    await writeChain(messages, 8);
    await settlePacking(db);
    expect((await db.messagePacks.toArray()).map((pack) => pack.start)).toEqual([0, 4]);

    // A newer m5 from a backup hangs under m1: it leaves depth 5 of the first line.
    const moved = buildMessage('m5', 'm1', 5);
    await db.transaction('rw', db.messages, async () => {
      await db.messages.bulkPut(await placeImportedRows(db, [toMessageRow(moved)]));
    });

    expect((await db.messagePacks.toArray()).map((pack) => pack.start)).toEqual([0]);
    expect(ids(await messages.loadChain(asMessageId('m7')))).toEqual([
      'm0',
      'm1',
      'm5',
      'm6',
      'm7',
    ]);
  });

  it('saves a new message with no read or write for packs, and an update with one delete', async () => {
    let operations: string[] = [];
    const { db, messages } = await openChat(PACK_SIZE, (db) => {
      // Under every middleware of the app: what IndexedDB itself is asked.
      operations = recordOperations(db, -3);
    });
    await writeChain(messages, 8);
    await settlePacking(db);
    const answer = buildAssistantMessage('m9', 'm8', { status: 'streaming', createdAt: 9 });
    const forPacks = () =>
      operations.filter((op) => op.startsWith('messagePacks.') || op === 'messages.getMany');

    operations.length = 0;
    await messages.put(buildMessage('m8', 'm7', 8));
    await messages.put(answer);
    expect(forPacks()).toEqual([]);

    operations.length = 0;
    await messages.put({ ...answer, steps: [{ text: 'More', textTokenCount: 1, toolCalls: [] }] });
    expect(forPacks()).toEqual(['messagePacks.delete']);
  });

  it('leaves a bucket unpacked while one of its answers is streaming', async () => {
    const { db, messages } = await openChat();
    await writeChain(messages, 3);
    await messages.put(buildAssistantMessage('m3', 'm2', { status: 'streaming', createdAt: 3 }));
    await messages.put(buildMessage('m4', 'm3', 4));

    await messages.loadChain(asMessageId('m4'));
    await settlePacking(db);
    expect(await db.messagePacks.count()).toBe(0);

    const answer = (await messages.get(asMessageId('m3'))) as ChatMessageSimple;
    await messages.put({ ...answer, status: 'complete' } as ChatMessageSimple);
    await messages.loadChain(asMessageId('m4'));
    await settlePacking(db);
    expect(await db.messagePacks.count()).toBe(1);
  });

  it('reads rows instead of a pack that is not whole or not of this bucket', async () => {
    const { db, messages } = await openChat();
    await writeChain(messages, 9);
    await messages.loadChain(asMessageId('m8'));
    await settlePacking(db);
    const [pack] = await db.messagePacks.toArray();
    if (pack === undefined) throw new Error('no pack was made');
    // Written around the stores: one pack lost a row, the other holds rows of other depths.
    await db.messagePacks.bulkPut([
      { ...pack, rows: pack.rows.slice(1) },
      { ...pack, start: 4 },
    ]);

    expect(ids(await messages.loadChain(asMessageId('m8')))).toEqual(
      Array.from({ length: 9 }, (_, i) => `m${i}`),
    );
  });

  it('loads the chain without packs when they cannot be written', async () => {
    const { db, messages } = await openChat(PACK_SIZE, (db) =>
      db.use({
        stack: 'dbcore',
        name: 'full-disk',
        create: (down: DBCore): DBCore => ({
          ...down,
          table: (name: string): DBCoreTable => {
            const table = down.table(name);
            if (name !== 'messagePacks') return table;
            return {
              ...table,
              mutate: (request) =>
                request.type === 'put'
                  ? Promise.reject(new DOMException('The disk is full.', 'QuotaExceededError'))
                  : table.mutate(request),
            };
          },
        }),
      }),
    );
    await writeChain(messages, 9);

    const first = await messages.loadChain(asMessageId('m8'));
    await settlePacking(db);
    expect(await db.messagePacks.count()).toBe(0);
    expect(await messages.loadChain(asMessageId('m8'))).toEqual(first);
  });

  it('loads every chain and every end of one as stored, through writes, loads and packing', async () => {
    type Step =
      | { kind: 'add'; parent: number | null }
      | { kind: 'pin' | 'delete' | 'load'; target: number; length: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          kind: fc.constant('add' as const),
          parent: fc.oneof(
            { weight: 8, arbitrary: fc.constant(null) },
            { weight: 1, arbitrary: fc.nat() },
          ),
        }),
      },
      ...(['pin', 'delete', 'load'] as const).map((kind) => ({
        weight: kind === 'delete' ? 1 : 3,
        arbitrary: fc.record({ kind: fc.constant(kind), target: fc.nat(), length: fc.nat(40) }),
      })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), async (steps) => {
        const { db, messages } = await openChat(3);
        const parents = new Map<string, string>();
        const pinned = new Set<string>();
        const walk = (leaf: string) => {
          const chain: string[] = [];
          for (let id = leaf; id !== ROOT_PARENT_ID; id = parents.get(id) ?? ROOT_PARENT_ID)
            chain.unshift(id);
          return chain;
        };
        let created = 0;
        for (const next of steps) {
          const existing = [...parents.keys()];
          if (next.kind === 'add') {
            // Mostly a long straight chat (null: under the newest), sometimes a fork.
            const parent =
              existing.length === 0
                ? null
                : next.parent === null
                  ? (existing.at(-1) as string)
                  : (existing[next.parent % existing.length] as string);
            const id = `m${created}`;
            await messages.put(buildMessage(id, parent, created++));
            parents.set(id, parent ?? ROOT_PARENT_ID);
            continue;
          }
          if (existing.length === 0) continue;
          const target = existing[next.target % existing.length] as string;
          if (next.kind === 'pin') {
            const message = (await messages.get(asMessageId(target))) as ChatMessageSimple;
            await messages.put({ ...message, isPinned: !message.isPinned });
            if (pinned.has(target)) pinned.delete(target);
            else pinned.add(target);
          } else if (next.kind === 'delete') {
            await messages.deleteBranch(asMessageId(target));
            // Everything whose walk passes through the target goes with it.
            const doomed = existing.filter((id) => walk(id).includes(target));
            for (const id of doomed) parents.delete(id);
          } else {
            const expected = walk(target);
            const end = await messages.loadChainEnd(asMessageId(target), next.length + 1);
            expect(ids(end.messages)).toEqual(expected.slice(-(next.length + 1)));
            const chain = await messages.loadChain(asMessageId(target));
            expect(ids(chain)).toEqual(expected);
            expect(chain.filter((m) => m.isPinned).map((m) => m.id)).toEqual(
              expected.filter((id) => pinned.has(id)),
            );
            // Sometimes the next step runs while packing is still under way.
            if (next.length % 2 === 0) await settlePacking(db);
          }
        }
        await settlePacking(db);
        for (const id of parents.keys()) {
          const chain = await messages.loadChain(asMessageId(id));
          expect(ids(chain)).toEqual(walk(id));
          expect(chain.filter((m) => m.isPinned).map((m) => m.id)).toEqual(
            walk(id).filter((other) => pinned.has(other)),
          );
        }
        await settlePacking(db);
        db.close();
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
