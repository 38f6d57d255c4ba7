import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/core/model';
import { startCouchServer, type CouchServer } from '../../../couch/server';
import { buildSession, buildUserMessage } from '../../storage/storage-fixtures';
import {
  openReplica,
  readSyncedState,
  syncSettings,
  syncUntilQuiet,
  type Replica,
} from './replicas';

let server: CouchServer;
beforeAll(async () => {
  server = await startCouchServer();
});
afterAll(async () => {
  await server.close();
});

const replicaIndex = fc.integer({ min: 0, max: 2 });
const sessionId = fc.constantFrom('s0', 's1', 's2');
const operation = fc.oneof(
  fc.record({
    kind: fc.constant('write_session' as const),
    replica: replicaIndex,
    session: sessionId,
    title: fc.string({ maxLength: 8 }),
  }),
  fc.record({
    kind: fc.constant('pin' as const),
    replica: replicaIndex,
    session: sessionId,
    isPinned: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('add_message' as const),
    replica: replicaIndex,
    session: sessionId,
    text: fc.string({ maxLength: 8 }),
  }),
  fc.record({
    kind: fc.constant('delete_session' as const),
    replica: replicaIndex,
    session: sessionId,
  }),
  fc.record({
    kind: fc.constant('set_setting' as const),
    replica: replicaIndex,
    key: fc.constantFrom('k0', 'k1'),
    value: fc.integer(),
  }),
  fc.record({ kind: fc.constant('sync' as const), replica: replicaIndex }),
  fc.record({
    kind: fc.constant('tick' as const),
    replica: replicaIndex,
    ms: fc.integer({ min: 0, max: 3000 }),
  }),
);
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

let messageCounter = 0;

async function apply(replicas: readonly Replica[], op: Operation): Promise<void> {
  const replica = replicas[op.replica] as Replica;
  switch (op.kind) {
    case 'write_session': {
      const id = asSessionId(op.session);
      if ((await replica.stores.sessions.get(id)) === undefined)
        await replica.stores.sessions.create(buildSession({ id, title: op.title }));
      else await replica.stores.sessions.update(id, { title: op.title });
      return;
    }
    case 'pin': {
      const id = asSessionId(op.session);
      if ((await replica.stores.sessions.get(id)) !== undefined)
        await replica.stores.sessions.update(id, { isPinned: op.isPinned });
      return;
    }
    case 'add_message': {
      const session = await replica.stores.sessions.get(asSessionId(op.session));
      if (session === undefined) return;
      messageCounter += 1;
      await replica.stores.messages.put(
        buildUserMessage(`m${messageCounter}`, session.currentLeafId, {
          sessionId: session.id,
          text: op.text,
        }),
      );
      return;
    }
    case 'delete_session':
      await replica.stores.sessions.delete(asSessionId(op.session));
      return;
    case 'set_setting':
      await replica.stores.settings.set(op.key, op.value);
      return;
    case 'sync':
      await replica.engine.syncNow();
      return;
    case 'tick':
      replica.clock.advance(op.ms);
      return;
  }
}

describe('sync convergence', () => {
  it('brings three devices to the same state whatever the interleaving of edits and syncs', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 25 }), async (operations) => {
        run += 1;
        const database = `carrel-property-${run}`;
        // Fewer KDF iterations than a real database (600,000): this test is about merging, and
        // each run opens three devices.
        const replicas = await Promise.all(
          ['a', 'b', 'c'].map((name, index) =>
            openReplica(name, { kdfIterations: 100_000, start: 1_700_000_000_000 + index * 7 }),
          ),
        );
        for (const replica of replicas)
          await replica.engine.connect(syncSettings(server.url, database), 'property passphrase', {
            isLive: false,
          });
        const created = new Set<string>();
        for (const op of operations) {
          await apply(replicas, op);
          if (op.kind === 'add_message') created.add(`m${messageCounter}`);
        }
        await syncUntilQuiet(replicas);
        const [first, ...others] = await Promise.all(
          replicas.map((replica) => readSyncedState(replica.db)),
        );
        for (const other of others) expect(other).toEqual(first);
        // A message is only ever gone with its deleted chat.
        for (const replica of replicas) {
          for (const row of (await replica.db.messages.toArray()) as { id: string }[])
            created.delete(row.id);
        }
        for (const id of created) {
          const record = await replicas[0]?.db.syncRecords.get(`messages/${id}`);
          expect(record === undefined || record.isDeleted, `message ${id} went missing`).toBe(true);
        }
        for (const replica of replicas) replica.db.close();
      }),
      { numRuns: 12 },
    );
  }, 240_000);
});
