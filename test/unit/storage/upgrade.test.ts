import { readFileSync } from 'node:fs';
import { Dexie } from 'dexie';
import { describe, expect, it } from 'vitest';
import { asFileId, asMessageId, asSessionId } from '../../../src/core/model';
import { CURRENT_SCHEMA_VERSION, openCarrelDb, SCHEMA_V1 } from '../../../src/storage/db';
import { createFileStore } from '../../../src/storage/file.store';
import { createMessageStore } from '../../../src/storage/message.store';
import { createSessionStore } from '../../../src/storage/session.store';
import { createSettingsStore } from '../../../src/storage/settings.store';
import { createFrozenClock, createTestIndexedDb } from './storage-fixtures';

type FixtureTables = Record<keyof typeof SCHEMA_V1, Record<string, unknown>[]>;

function readFixture(name: string): FixtureTables {
  const text = readFileSync(new URL(`../../fixtures/db/${name}`, import.meta.url), 'utf8');
  // Blobs cannot live in JSON: fixtures write them as { $blob: text, type }.
  return (
    JSON.parse(text, (_key, value: unknown) => {
      if (typeof value === 'object' && value !== null && '$blob' in value) {
        const { $blob, type } = value as { $blob: string; type: string };
        return new Blob([$blob], { type });
      }
      return value;
    }) as { tables: FixtureTables }
  ).tables;
}

/** Writes the fixture with the version-1 schema exactly as db.ts declares it. */
async function createV1Database(
  name: string,
  tables: FixtureTables,
  dexieOptions: ReturnType<typeof createTestIndexedDb>,
) {
  const v1 = new Dexie(name, dexieOptions);
  v1.version(1).stores(SCHEMA_V1);
  await v1.open();
  for (const [table, rows] of Object.entries(tables)) await v1.table(table).bulkAdd(rows);
  v1.close();
}

async function readV1Database(name: string, dexieOptions: ReturnType<typeof createTestIndexedDb>) {
  const v1 = new Dexie(name, dexieOptions);
  v1.version(1).stores(SCHEMA_V1);
  await v1.open();
  const contents: Record<string, unknown[]> = {};
  for (const table of Object.keys(SCHEMA_V1)) contents[table] = await v1.table(table).toArray();
  const version = v1.verno;
  v1.close();
  return { version, contents };
}

describe('schema upgrades', () => {
  it("upgrades a version 1 database so every row reads through today's stores", async () => {
    const dexieOptions = createTestIndexedDb();
    await createV1Database('upgrade-ok', readFixture('v1.json'), dexieOptions);

    const db = await openCarrelDb('upgrade-ok', { dexie: dexieOptions });
    const clock = createFrozenClock();
    const sessions = createSessionStore(db, clock);
    const messages = createMessageStore(db, clock);

    expect(db.verno).toBe(CURRENT_SCHEMA_VERSION);
    expect(await sessions.get(asSessionId('s1'))).toMatchObject({
      version: 0,
      currentLeafId: 'a2',
      isPinned: true,
    });
    // Roots were invisible to the [sessionId+parentId] index in v1; now they are listed.
    expect((await messages.children(asSessionId('s1'), null)).map((m) => m.id)).toEqual(['u1']);
    expect((await messages.loadVisibleChain(asSessionId('s1'))).map((m) => m.id)).toEqual([
      'u1',
      'a2',
    ]);
    expect(await messages.siblings(asMessageId('a2'))).toMatchObject({ index: 1, count: 2 });
    expect((await messages.listStreaming()).map((m) => m.id)).toEqual(['a2']);
    expect(await db.messages.get('u1')).toMatchObject({
      parentId: '',
      status: 'complete',
      tokenCount: 11,
    });
    expect(await db.messages.get('a1')).toMatchObject({
      text: 'Let me check.\n\nTry the Dolomites.',
      tokenCount: 21,
    });
    expect(await messages.get(asMessageId('a1'))).toMatchObject({
      role: 'assistant',
      parentId: 'u1',
      usage: { inputTokens: 40, outputTokens: 19 },
    });
    expect(await (await createFileStore(db).get(asFileId('f1')))?.blob.text()).toBe('likes hills');
    expect(await createSettingsStore(db, clock).get('theme')).toBe('dark');
    expect(await db.usage.count()).toBe(0);
    db.close();
  });

  it('leaves a version 1 database exactly as it was when its upgrade fails', async () => {
    const dexieOptions = createTestIndexedDb();
    await createV1Database('upgrade-fails', readFixture('v1-unreadable-role.json'), dexieOptions);
    const before = await readV1Database('upgrade-fails', dexieOptions);

    await expect(openCarrelDb('upgrade-fails', { dexie: dexieOptions })).rejects.toMatchObject({
      code: 'invalid_data',
      message: expect.stringContaining('x1') as unknown,
    });

    const after = await readV1Database('upgrade-fails', dexieOptions);
    expect(after.version).toBe(1);
    expect(after.contents).toEqual(before.contents);
    expect(after.contents.messages).toHaveLength(4);
  });
});
