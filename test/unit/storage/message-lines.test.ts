import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asMessageId, asSessionId } from '../../../src/core/model';
import { ROOT_PARENT_ID } from '../../../src/storage/db';
import { placeImportedRows, placeRows, type TreeLinks } from '../../../src/storage/message-lines';
import { toMessageRow } from '../../../src/storage/message-rows';
import { createMessageStore } from '../../../src/storage/message.store';
import { createSessionStore } from '../../../src/storage/session.store';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  openTestDb,
} from './storage-fixtures';

/** The reference every chain is checked against: parent links followed one at a time. */
function walkParents(parents: ReadonlyMap<string, string>, leafId: string): string[] {
  const chain: string[] = [];
  for (let id = leafId; id !== ROOT_PARENT_ID; id = parents.get(id) ?? ROOT_PARENT_ID)
    chain.unshift(id);
  return chain;
}

function buildMessage(id: string, parentId: string | null, createdAt: number) {
  return createdAt % 2 === 0
    ? buildUserMessage(id, parentId, { createdAt, updatedAt: createdAt })
    : buildAssistantMessage(id, parentId, { createdAt, updatedAt: createdAt });
}

/** What the store is asked to do: add a message under an earlier one, or delete a branch. */
type TreeStep = { kind: 'add'; parent: number | null } | { kind: 'delete'; target: number };

const treeStepArbitrary: fc.Arbitrary<TreeStep> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      parent: fc.option(fc.nat(), { freq: 8 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), target: fc.nat() }) },
);

/** A tree as rows: each message under a random earlier one (or a root), ids in creation order. */
const treeArbitrary = fc
  .array(fc.option(fc.nat(), { freq: 10 }), { minLength: 1, maxLength: 60 })
  .map((parents) =>
    parents.map((pick, index): TreeLinks => {
      const parent = pick === null || index === 0 ? null : `m${pick % index}`;
      return { id: `m${index}`, parentId: parent ?? ROOT_PARENT_ID, createdAt: index };
    }),
  );

/** Lines are paths: a row below a line's head sits right under its parent, in the same line. */
function expectLinesArePaths(rows: readonly (TreeLinks & { lineId: string; depth: number })[]) {
  const bySlot = new Map<string, TreeLinks>();
  for (const row of rows) {
    const slot = `${row.lineId}@${row.depth}`;
    expect(bySlot.has(slot), `two rows at ${slot}`).toBe(false);
    bySlot.set(slot, row);
  }
  for (const row of rows) {
    if (row.lineId === row.id) continue;
    expect(bySlot.get(`${row.lineId}@${row.depth - 1}`)?.id).toBe(row.parentId);
  }
}

async function openSession() {
  const db = await openTestDb();
  const clock = createFrozenClock();
  await createSessionStore(db, clock).create(buildSession());
  return { db, clock, messages: createMessageStore(db, clock) };
}

describe('message lines', () => {
  it('loads every chain exactly as the parent links say, through adds and deletes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(treeStepArbitrary, { minLength: 1, maxLength: 30 }),
        async (steps) => {
          const { db, clock, messages } = await openSession();
          const parents = new Map<string, string>();
          let created = 0;
          for (const step of steps) {
            const existing = [...parents.keys()];
            if (step.kind === 'add') {
              const parent =
                step.parent === null || existing.length === 0
                  ? null
                  : (existing[step.parent % existing.length] as string);
              const id = `m${created}`;
              await messages.put(buildMessage(id, parent, created++));
              parents.set(id, parent ?? ROOT_PARENT_ID);
            } else if (existing.length > 0) {
              const target = existing[step.target % existing.length] as string;
              await messages.deleteBranch(asMessageId(target));
              // Everything whose walk passes through the target goes with it.
              const doomed = existing.filter((id) => walkParents(parents, id).includes(target));
              for (const id of doomed) parents.delete(id);
            }
          }

          for (const id of parents.keys()) {
            const chain = await messages.loadChain(asMessageId(id));
            expect(chain.map((message) => message.id)).toEqual(walkParents(parents, id));
          }
          const session = await createSessionStore(db, clock).get(asSessionId('s1'));
          const leafId = session?.currentLeafId ?? null;
          const visible = await messages.loadVisibleChain(asSessionId('s1'));
          expect(visible.map((message) => message.id)).toEqual(
            leafId === null ? [] : walkParents(parents, leafId),
          );
          expectLinesArePaths(await db.messages.toArray());
          db.close();
        },
      ),
      { numRuns: 20 },
    );
    // Each run is a fresh database and up to 30 transactions; shared CI machines are slow.
  }, 60_000);

  it('places a batch so that lines are paths, keeping what is stored where it is', () => {
    fc.assert(
      fc.property(treeArbitrary, fc.nat(), fc.nat(), (rows, storedCount, replacedCount) => {
        const split = storedCount % (rows.length + 1);
        const stored = placeRows([], rows.slice(0, split));
        // The batch: every later row, plus some stored ones again (an import that replaces them).
        const batch = [...rows.slice(split), ...rows.slice(0, replacedCount % (split + 1))];
        const placed = placeRows(stored, batch);

        const batchIds = new Set(batch.map((row) => row.id));
        const merged = [...stored.filter((row) => !batchIds.has(row.id)), ...placed];
        expectLinesArePaths(merged);
        for (const row of placed) {
          const before = stored.find((old) => old.id === row.id);
          if (before !== undefined)
            expect([row.lineId, row.depth]).toEqual([before.lineId, before.depth]);
        }
      }),
    );
  });

  it('gives a batch placed at once the lines it would get message by message', () => {
    fc.assert(
      fc.property(treeArbitrary, (rows) => {
        const atOnce = placeRows([], rows);
        let oneByOne: ReturnType<typeof placeRows<TreeLinks>> = [];
        for (const row of rows) oneByOne = [...oneByOne, ...placeRows(oneByOne, [row])];
        expect(atOnce).toEqual(oneByOne);
      }),
    );
  });

  it('loads imported sessions through their lines, next to messages already stored', async () => {
    const { db, messages } = await openSession();
    await messages.put(buildMessage('u1', null, 10));
    await messages.put(buildMessage('a1', 'u1', 11));
    // An import brings a second answer, its follow-up, and a newer copy of a1.
    const imported = [
      buildMessage('a1', 'u1', 11),
      buildMessage('a1b', 'u1', 12),
      buildMessage('u2', 'a1b', 13),
    ].map(toMessageRow);
    await db.transaction('rw', db.messages, async () => {
      await db.messages.bulkPut(await placeImportedRows(db, imported));
    });

    expect((await messages.loadChain(asMessageId('u2'))).map((m) => m.id)).toEqual([
      'u1',
      'a1b',
      'u2',
    ]);
    expect(await db.messages.get('a1')).toMatchObject({ lineId: 'u1', depth: 1 });
    expect(await db.messages.get('u2')).toMatchObject({ lineId: 'a1b', depth: 2 });
  });

  it('still loads the right chain when a line disagrees with the parent links', async () => {
    const { db, messages } = await openSession();
    for (let i = 0; i < 6; i += 1)
      await messages.put(buildMessage(`m${i}`, i === 0 ? null : `m${i - 1}`, i));
    // Written around the stores: m3 claims another line, m4 has none at all.
    await db.messages.update('m3', { lineId: 'elsewhere', depth: 7 });
    await db.messages
      .where('id')
      .equals('m4')
      .modify((row) => {
        delete (row as Partial<typeof row>).lineId;
      });

    expect((await messages.loadChain(asMessageId('m5'))).map((m) => m.id)).toEqual([
      'm0',
      'm1',
      'm2',
      'm3',
      'm4',
      'm5',
    ]);
  });

  it('refuses to move a stored message under another parent', async () => {
    const { db, messages } = await openSession();
    await messages.put(buildMessage('u1', null, 10));
    await messages.put(buildMessage('a1', 'u1', 11));
    await messages.put(buildMessage('u2', null, 12));

    await expect(messages.put(buildMessage('a1', 'u2', 11))).rejects.toMatchObject({
      code: 'invalid_data',
    });
    expect(await db.messages.get('a1')).toMatchObject({ parentId: 'u1', lineId: 'u1' });
  });
});
