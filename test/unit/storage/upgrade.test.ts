import { readFileSync } from 'node:fs';
import { Dexie } from 'dexie';
import { describe, expect, it } from 'vitest';
import { asFileId, asMessageId, asProjectId, asSessionId } from '../../../src/core/model';
import {
  CURRENT_SCHEMA_VERSION,
  openCarrelDb,
  SCHEMA_V1,
  SCHEMA_V2,
  SCHEMA_V3,
  SCHEMA_V8,
  SCHEMA_V12,
} from '../../../src/storage/db';
import { placeRows } from '../../../src/storage/message-lines';
import { settlePacking } from '../../../src/storage/message-packs';
import { toMessageRow } from '../../../src/storage/message-rows';
import { createPromptStore } from '../../../src/storage/prompt.store';
import { createProviderStore } from '../../../src/storage/provider.store';
import { createFileStore } from '../../../src/storage/file.store';
import { createMessageStore } from '../../../src/storage/message.store';
import { createSessionStore } from '../../../src/storage/session.store';
import { createSettingsStore } from '../../../src/storage/settings.store';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  createTestIndexedDb,
} from './storage-fixtures';

type FixtureTables = Record<string, Record<string, unknown>[]>;

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

const SCHEMAS = { 1: SCHEMA_V1, 2: SCHEMA_V2, 3: SCHEMA_V3, 8: SCHEMA_V8, 12: SCHEMA_V12 } as const;
type OldVersion = keyof typeof SCHEMAS;

/** Writes the fixture with an earlier schema exactly as db.ts declares it. */
async function createOldDatabase(
  version: OldVersion,
  name: string,
  tables: FixtureTables,
  dexieOptions: ReturnType<typeof createTestIndexedDb>,
) {
  const old = new Dexie(name, dexieOptions);
  old.version(version).stores(SCHEMAS[version]);
  await old.open();
  for (const [table, rows] of Object.entries(tables)) await old.table(table).bulkAdd(rows);
  old.close();
}

async function readOldDatabase(
  version: OldVersion,
  name: string,
  dexieOptions: ReturnType<typeof createTestIndexedDb>,
) {
  const old = new Dexie(name, dexieOptions);
  old.version(version).stores(SCHEMAS[version]);
  await old.open();
  const contents: Record<string, unknown[]> = {};
  for (const table of Object.keys(SCHEMAS[version]))
    contents[table] = await old.table(table).toArray();
  const stored = old.verno;
  old.close();
  return { version: stored, contents };
}

/** The reference chain: parent links followed one by one. */
function walkParents(rows: readonly Record<string, unknown>[], leafId: string): string[] {
  const byId = new Map(rows.map((row) => [row.id as string, row]));
  const chain: string[] = [];
  for (let id = leafId; id !== ''; id = byId.get(id)?.parentId as string) chain.unshift(id);
  return chain;
}

describe('schema upgrades', () => {
  it("upgrades a version 1 database so every row reads through today's stores", async () => {
    const dexieOptions = createTestIndexedDb();
    await createOldDatabase(1, 'upgrade-ok', readFixture('v1.json'), dexieOptions);

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
    expect(await db.messages.get('a1')).toMatchObject({ tokenCount: 21 });
    expect(await db.messages.get('a1')).not.toHaveProperty('text');
    expect(await messages.get(asMessageId('a1'))).toMatchObject({
      role: 'assistant',
      parentId: 'u1',
      usage: { inputTokens: 40, outputTokens: 19 },
    });
    expect(await (await createFileStore(db).get(asFileId('f1')))?.blob.text()).toBe('likes hills');
    // The index of names by project covers the rows stored before it existed.
    expect(await createFileStore(db).listNamesByProject(asProjectId('p1'))).toEqual([
      { id: 'f1', name: 'notes.txt' },
    ]);
    expect(await createSettingsStore(db, clock).get('theme')).toBe('dark');
    expect(await db.usage.count()).toBe(0);
    db.close();
  });

  it('leaves a version 1 database exactly as it was when its upgrade fails', async () => {
    const dexieOptions = createTestIndexedDb();
    await createOldDatabase(
      1,
      'upgrade-fails',
      readFixture('v1-unreadable-role.json'),
      dexieOptions,
    );
    const before = await readOldDatabase(1, 'upgrade-fails', dexieOptions);

    await expect(openCarrelDb('upgrade-fails', { dexie: dexieOptions })).rejects.toMatchObject({
      code: 'invalid_data',
      message: expect.stringContaining('x1') as unknown,
    });

    const after = await readOldDatabase(1, 'upgrade-fails', dexieOptions);
    expect(after.version).toBe(1);
    expect(after.contents).toEqual(before.contents);
    expect(after.contents.messages).toHaveLength(4);
  });

  it('upgrades a version 2 database: every chain loads as its parent links say, in lines', async () => {
    const dexieOptions = createTestIndexedDb();
    const tables = readFixture('v2.json');
    await createOldDatabase(2, 'upgrade-v2', tables, dexieOptions);

    const db = await openCarrelDb('upgrade-v2', { dexie: dexieOptions });
    const clock = createFrozenClock();
    const messages = createMessageStore(db, clock);

    expect(db.verno).toBe(CURRENT_SCHEMA_VERSION);
    expect((await messages.loadVisibleChain(asSessionId('s1'))).map((m) => m.id)).toEqual([
      'u1',
      'a1',
      'u2e',
      'a3e',
    ]);
    for (const row of tables.messages ?? []) {
      const id = row.id as string;
      expect((await messages.loadChain(asMessageId(id))).map((m) => m.id)).toEqual(
        walkParents(tables.messages ?? [], id),
      );
    }
    // The oldest child continues its parent's line; a regenerated answer or an edit starts one.
    const lines = Object.fromEntries(
      (await db.messages.toArray()).map((row) => [row.id, [row.lineId, row.depth]]),
    );
    expect(lines).toMatchObject({
      u1: ['u1', 0],
      a1: ['u1', 1],
      a1r: ['a1r', 1],
      u2: ['u1', 2],
      a3: ['u1', 3],
      u2e: ['u2e', 2],
      u1e: ['u1e', 0],
      a1e: ['u1e', 1],
      's2-m5': ['s2-m0', 5],
    });
    // Answers lose their copy of the text; everything a message holds reads back unchanged.
    expect(await db.messages.get('a1')).not.toHaveProperty('text');
    expect(await messages.get(asMessageId('a1'))).toMatchObject({
      steps: [{ text: 'Start with a simple white loaf.' }],
      usage: { inputTokens: 20, outputTokens: 8 },
    });
    expect((await messages.listStreaming()).map((m) => m.id)).toEqual([]);
    expect(await createSettingsStore(db, clock).get('theme')).toBe('dark');
    expect(await db.usage.count()).toBe(1);

    // New messages continue from the upgraded lines.
    await messages.put(buildUserMessage('u3', 'a3e', { createdAt: 1_800_000_000_000 }));
    expect(await db.messages.get('u3')).toMatchObject({ lineId: 'u2e', depth: 4 });
    db.close();
  });

  it('leaves a version 2 database exactly as it was when its upgrade fails', async () => {
    const dexieOptions = createTestIndexedDb();
    await createOldDatabase(
      2,
      'upgrade-v2-fails',
      readFixture('v2-unreadable-parent.json'),
      dexieOptions,
    );
    const before = await readOldDatabase(2, 'upgrade-v2-fails', dexieOptions);

    await expect(openCarrelDb('upgrade-v2-fails', { dexie: dexieOptions })).rejects.toMatchObject({
      code: 'invalid_data',
      message: expect.stringContaining('u2') as unknown,
    });

    const after = await readOldDatabase(2, 'upgrade-v2-fails', dexieOptions);
    expect(after.version).toBe(2);
    expect(after.contents).toEqual(before.contents);
    expect(after.contents.messages).toHaveLength(15);
  });
  it('upgrades a version 3 database: each stored key is bound to the origin it is used with', async () => {
    const dexieOptions = createTestIndexedDb();
    await createOldDatabase(3, 'upgrade-v3', readFixture('v3.json'), dexieOptions);

    const db = await openCarrelDb('upgrade-v3', { dexie: dexieOptions });
    expect(db.verno).toBe(CURRENT_SCHEMA_VERSION);
    const providers = await createProviderStore(db).list();
    const byId = Object.fromEntries(providers.map((provider) => [provider.id, provider]));
    expect(byId.openai).toMatchObject({
      apiKey: 'sk-stored-openai-0001',
      keyOrigin: 'https://api.openai.com',
    });
    expect(byId.gateway).toMatchObject({
      apiKey: 'gw-stored-key-0002',
      keyOrigin: 'https://gateway.example.test:8443',
      headers: { 'x-team': 'blue' },
    });
    expect(byId.ollama?.apiKey).toBe('');
    expect(byId.ollama).not.toHaveProperty('keyOrigin');
    expect(await createSettingsStore(db, createFrozenClock()).get('theme')).toBe('dark');
    db.close();
  });

  it('upgrades a version 8 database: what it held stays, and the prompt library starts empty and writable', async () => {
    const dexieOptions = createTestIndexedDb();
    await createOldDatabase(
      8,
      'upgrade-v8',
      { settings: [{ key: 'theme', value: 'dark', updatedAt: 1 }] },
      dexieOptions,
    );

    const db = await openCarrelDb('upgrade-v8', { dexie: dexieOptions });
    expect(db.verno).toBe(CURRENT_SCHEMA_VERSION);
    expect(await createSettingsStore(db, createFrozenClock()).get('theme')).toBe('dark');
    const prompts = createPromptStore(db);
    expect(await prompts.list()).toEqual([]);
    const prompt = {
      id: 'p1',
      title: 'Review',
      text: 'Review {{code}}',
      createdAt: 1,
      updatedAt: 1,
    };
    await prompts.put(prompt);
    expect(await prompts.list()).toEqual([prompt]);
    db.close();
  });

  it('upgrades a version 12 database: its chats load as before, and are packed as they are read', async () => {
    const dexieOptions = createTestIndexedDb();
    const ids = Array.from({ length: 10 }, (_, i) => `m${i}`);
    const rows = placeRows(
      [],
      ids.map((id, i) => {
        const parent = i === 0 ? null : `m${i - 1}`;
        const build = i % 2 === 0 ? buildUserMessage : buildAssistantMessage;
        return toMessageRow(build(id, parent, { createdAt: i, updatedAt: i }));
      }),
    );
    await createOldDatabase(
      12,
      'upgrade-v12',
      {
        sessions: [{ ...buildSession({ currentLeafId: asMessageId('m9') }) }],
        messages: rows.map((row) => ({ ...row })),
      },
      dexieOptions,
    );

    const db = await openCarrelDb('upgrade-v12', { dexie: dexieOptions, messagePackSize: 4 });
    expect(db.verno).toBe(CURRENT_SCHEMA_VERSION);
    expect(await db.messagePacks.count()).toBe(0);
    const messages = createMessageStore(db, createFrozenClock());
    const chain = await messages.loadVisibleChain(asSessionId('s1'));
    expect(chain.map((m) => m.id)).toEqual(ids);
    await settlePacking(db);
    expect((await db.messagePacks.toArray()).map((pack) => pack.start)).toEqual([0, 4]);
    expect(await messages.loadChain(asMessageId('m9'))).toEqual(chain);
    db.close();
  });
});
