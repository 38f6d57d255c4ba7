import fc from 'fast-check';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { createStores, isStorageError, openCarrelDb, type CarrelDb } from '../../../src/storage';
import { scripts } from '../../fakes/scripted-llm-client';
import { createSteppingClock, TestAgent } from '../../fakes/test-agent';
import { pickRunCount, pickTimeoutMs } from '../soak';

/** Fast-check-mutated export files against a database with data in it. */
const MUTATION_RUNS = pickRunCount(150, 5_000);

async function dumpDatabase(db: CarrelDb): Promise<string> {
  const dump: Record<string, unknown> = {};
  for (const table of db.tables) dump[table.name] = await table.toArray();
  return JSON.stringify(dump);
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path to a value in the JSON tree. */
function listPaths(value: Json, path: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(path);
  if (Array.isArray(value)) value.forEach((item, i) => listPaths(item, [...path, i], out));
  else if (value !== null && typeof value === 'object') for (const [key, child] of Object.entries(value)) listPaths(child, [...path, key], out);
  return out;
}

type Mutation =
  | { kind: 'replace'; value: Json }
  | { kind: 'delete' }
  | { kind: 'add-key'; key: string; value: Json }
  | { kind: 'huge-string' };

const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.double(),
  fc.string(),
  fc.constant(-1),
  fc.constant<Json>([]),
  fc.constant<Json>({}),
  fc.constant('<img src=x onerror=alert(1)>'),
);

const mutationArbitrary: fc.Arbitrary<Mutation> = fc.oneof(
  hostileValue.map((value) => ({ kind: 'replace' as const, value })),
  fc.constant({ kind: 'delete' as const }),
  fc.record({ kind: fc.constant('add-key' as const), key: fc.constantFrom('__proto__', 'constructor', 'prototype'), value: hostileValue }),
  fc.constant({ kind: 'huge-string' as const }),
);

/** The file's text with the mutation applied at the path; '' when it does not apply there. */
function applyMutation(root: Json, path: (string | number)[], mutation: Mutation): string {
  const clone = JSON.parse(JSON.stringify(root)) as Json;
  if (mutation.kind === 'add-key') {
    let target: Json = clone;
    for (const step of path) target = (target as Record<string, Json>)[step] as Json;
    if (target === null || typeof target !== 'object' || Array.isArray(target)) return '';
    // Written into the text directly: JSON.stringify never emits an own "__proto__" key.
    const text = JSON.stringify(clone);
    const marker = JSON.stringify(target);
    return text.replace(marker, `${marker.slice(0, -1)}${marker.length > 2 ? ',' : ''}${JSON.stringify(mutation.key)}:${JSON.stringify(mutation.value)}}`);
  }
  if (path.length === 0) return '';
  let parent: Json = clone;
  for (const step of path.slice(0, -1)) parent = (parent as Record<string, Json>)[step] as Json;
  const last = path[path.length - 1] as string | number;
  const container = parent as Record<string | number, Json>;
  if (mutation.kind === 'delete') {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete container[last];
  } else if (mutation.kind === 'huge-string') container[last] = 'x'.repeat(10_000_001);
  else container[last] = mutation.value;
  return JSON.stringify(clone);
}

describe('importing hostile backups', () => {
  it(
    `rejects broken files with a clear error and leaves the data byte-identical (${MUTATION_RUNS} files)`,
    async () => {
      const agent = await TestAgent.create();
      agent.script(scripts.text('An answer worth keeping.'), scripts.text('Another one.'));
      await agent.send('First question');
      await agent.send('Second question');
      const stores = createStores(agent.db, createSteppingClock(), { newId: () => crypto.randomUUID() });
      // The file's lines (header, rows, end line) as one JSON array, so a mutation can reach
      // any value of any line, or a whole line.
      const exported = await (await stores.backup.exportBackup({ kind: 'all' })).text();
      const original = exported.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Json);
      const toFile = (mutated: string) => (JSON.parse(mutated) as Json[]).map((line) => `${JSON.stringify(line)}\n`).join('');
      const paths = listPaths(original);
      let before = await dumpDatabase(agent.db);
      let accepted = 0;
      let rejectedClearly = 0;
      let unclear: string[] = [];

      await fc.assert(
        fc.asyncProperty(fc.nat({ max: paths.length - 1 }), mutationArbitrary, async (pathIndex, mutation) => {
          const mutated = applyMutation(original, paths[pathIndex] ?? [], mutation);
          if (mutated === '') return;
          const text = toFile(mutated);
          if (text === exported) return;
          try {
            await stores.backup.importBackup(new Blob([text]));
            accepted++;
            // A mutation the schema tolerates (e.g. a title changed to another string) may import;
            // later rejections are compared with the data as it now is.
            before = await dumpDatabase(agent.db);
            return;
          } catch (error) {
            if (isStorageError(error) && error.code === 'invalid_data' && /backup/i.test(error.message)) rejectedClearly++;
            else unclear = [...unclear, error instanceof Error ? `${error.name}: ${error.message}` : String(error)];
          }
          expect(await dumpDatabase(agent.db)).toBe(before);
        }),
        { numRuns: MUTATION_RUNS },
      );
      expect(unclear).toEqual([]);
      expect(rejectedClearly).toBeGreaterThan(0);
      expect(accepted + rejectedClearly).toBeGreaterThan(0);
    },
    // 150 imports, each followed by a dump of the whole database: 15–20 s on a quiet machine,
    // 39 s at a load of 8, and past 60 s beside a bench and another suite. A hang limit.
    pickTimeoutMs(180_000, 1_800_000),
  );
});

describe('prototype pollution through a backup', () => {
  it('leaves Object.prototype untouched whatever the file says', async () => {
    const db = await openCarrelDb(`pollution-${Date.now()}`, { dexie: { indexedDB, IDBKeyRange } });
    const stores = createStores(db, createSteppingClock(), { newId: () => crypto.randomUUID() });
    const text = '{"format":"carrel-backup","version":1,"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}';
    await expect(stores.backup.importBackup(new Blob([text]))).rejects.toThrow(/not allowed/);
    const lines = [
      '{"format":"carrel-backup","version":2,"exportedAt":1,"scope":{"kind":"all"},"hasApiKeys":false}',
      '{"table":"settings","row":{"key":"theme","value":"dark","updatedAt":1,"__proto__":{"polluted":true}}}',
      '{"end":true,"rows":1}',
    ].join('\n');
    await expect(stores.backup.importBackup(new Blob([lines]))).rejects.toThrow(/not allowed/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
