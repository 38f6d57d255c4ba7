import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  asProviderId,
  asSessionId,
  bindKey,
  readOrigin,
  type ProviderConfig,
  type ProviderPreset,
} from '../../../src/core/model';
import { createLlmClient } from '../../../src/llm';
import { createBackupService } from '../../../src/storage/backup/backup';
import { BACKUP_FORMAT, LEGACY_BACKUP_VERSION } from '../../../src/storage/backup/backup-format';
import { exportBackup } from '../../../src/storage/backup/export-backup';
import { createMessageStore } from '../../../src/storage/message.store';
import { createProviderStore } from '../../../src/storage/provider.store';
import { createSessionStore } from '../../../src/storage/session.store';
import { buildRequest, collectEvents, createStubFetch } from '../llm/replay';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  openTestDb,
} from './storage-fixtures';

/** Where keys may be entered for, and where a backup may point a provider. */
const ORIGINS = [
  'https://api.openai.com',
  'https://attacker.example',
  'http://localhost:11434',
  'https://api.openai.com:8443',
];
const PATHS = ['/v1', '/api/v1'];
const IDS = ['p1', 'p2', 'p3'];
const PRESETS: ProviderPreset[] = ['openai', 'anthropic', 'google', 'custom'];
const KINDS = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'google',
  custom: 'openai-compatible',
} as const;

interface ProviderShape {
  id: string;
  preset: ProviderPreset;
  origin: string;
  path: string;
  hasKey: boolean;
  hasHeader: boolean;
  updatedAt: number;
}

const providerShape = fc.record({
  id: fc.constantFrom(...IDS),
  preset: fc.constantFrom(...PRESETS),
  origin: fc.constantFrom(...ORIGINS),
  path: fc.constantFrom(...PATHS),
  hasKey: fc.boolean(),
  hasHeader: fc.boolean(),
  updatedAt: fc.integer({ min: 1, max: 10 }),
});

function buildProvider(shape: ProviderShape): ProviderConfig {
  const baseUrl = `${shape.origin}${shape.path}`;
  return {
    id: asProviderId(shape.id),
    name: `Provider ${shape.id}`,
    kind: KINDS[shape.preset as keyof typeof KINDS],
    preset: shape.preset,
    baseUrl,
    apiKey: '',
    headers: shape.hasHeader ? { 'x-team': 'blue' } : {},
    models: ['test-model'],
    contextWindowOverrides: {},
    createdAt: 0,
    updatedAt: shape.updatedAt,
  };
}

function buildBackupText(providers: ProviderConfig[], hasApiKeys: boolean): string {
  return JSON.stringify({
    format: BACKUP_FORMAT,
    version: LEGACY_BACKUP_VERSION,
    exportedAt: 1,
    scope: { kind: 'all' },
    hasApiKeys,
    sessions: [],
    messages: [],
    projects: [],
    files: [],
    chunks: [],
    agents: [],
    providers,
    settings: [],
    usage: [],
  });
}

/** Every request each stored provider makes (a chat request and a model listing). */
async function sendFromEveryProvider(providers: ProviderConfig[]) {
  const stub = createStubFetch(() => ({ status: 500, body: '{"error":{"message":"stop"}}' }));
  const client = createLlmClient({ fetch: stub.fetch, sleep: () => Promise.resolve() });
  for (const provider of providers) {
    await collectEvents(client.stream(buildRequest(provider), new AbortController().signal));
    await client.listModels(provider, new AbortController().signal).catch(() => undefined);
  }
  return stub.requests;
}

beforeAll(() => {
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
});

describe('keys stay with the origin they were entered for', () => {
  it('never sends a key to another origin, whatever a backup holds and whatever is stored', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(providerShape, { selector: (shape) => shape.id, maxLength: 3 }),
        fc.uniqueArray(providerShape, { selector: (shape) => shape.id, maxLength: 3 }),
        fc.boolean(),
        async (storedShapes, backupShapes, hasApiKeys) => {
          /** Each key, and the origin it was entered for. */
          const keyHomes = new Map<string, string>();
          const db = await openTestDb();
          const store = createProviderStore(db);
          for (const shape of storedShapes) {
            const key = shape.hasKey ? `sk-device-${shape.id}-7f3a9c` : '';
            const provider = buildProvider(shape);
            if (key !== '') keyHomes.set(key, readOrigin(provider.baseUrl) ?? '');
            await store.put({ ...provider, ...bindKey(key, provider.baseUrl) });
          }
          const backupProviders = backupShapes.map((shape) => {
            const provider = buildProvider({ ...shape, updatedAt: shape.updatedAt + 5 });
            const key = hasApiKeys && shape.hasKey ? `sk-backup-${shape.id}-1b2d4e` : '';
            if (key !== '') keyHomes.set(key, readOrigin(provider.baseUrl) ?? '');
            return { ...provider, apiKey: key };
          });
          await createBackupService(db, createFrozenClock()).importBackup(
            new Blob([buildBackupText(backupProviders, hasApiKeys)]),
          );

          const requests = await sendFromEveryProvider(await store.list());
          for (const request of requests) {
            const sent = `${request.url} ${JSON.stringify(request.headers)} ${JSON.stringify(request.body)}`;
            for (const [key, home] of keyHomes) {
              if (sent.includes(key)) expect(readOrigin(request.url), `${key} went to`).toBe(home);
            }
          }
          db.close();
        },
      ),
      { numRuns: 40 },
    );
  });

  it('keeps the key of a provider the backup leaves at the same origin and headers, and drops it otherwise', async () => {
    const db = await openTestDb();
    const store = createProviderStore(db);
    const same = buildProvider({
      id: 'p1',
      preset: 'openai',
      origin: ORIGINS[0] ?? '',
      path: '/v1',
      hasKey: true,
      hasHeader: false,
      updatedAt: 1,
    });
    const moved = { ...same, id: asProviderId('p2'), name: 'Moved' };
    const headed = { ...same, id: asProviderId('p3'), name: 'Headed' };
    for (const [provider, key] of [
      [same, 'sk-device-same-11111111'],
      [moved, 'sk-device-moved-22222222'],
      [headed, 'sk-device-headed-33333333'],
    ] as const) {
      await store.put({ ...provider, ...bindKey(key, provider.baseUrl) });
    }

    const report = await createBackupService(db, createFrozenClock()).importBackup(
      new Blob([
        buildBackupText(
          [
            { ...same, baseUrl: 'https://api.openai.com/v2', updatedAt: 9 },
            { ...moved, baseUrl: 'https://attacker.example/v1', updatedAt: 9 },
            { ...headed, headers: { 'x-forward-to': 'https://attacker.example' }, updatedAt: 9 },
          ],
          false,
        ),
      ]),
    );

    expect(report.providersWithoutKey.sort()).toEqual(['Headed', 'Moved']);
    expect(await store.get(same.id)).toMatchObject({
      apiKey: 'sk-device-same-11111111',
      keyOrigin: 'https://api.openai.com',
      baseUrl: 'https://api.openai.com/v2',
    });
    expect(await store.get(moved.id)).toMatchObject({
      apiKey: '',
      baseUrl: 'https://attacker.example/v1',
    });
    expect((await store.get(moved.id))?.keyOrigin).toBeUndefined();
    expect((await store.get(headed.id))?.apiKey).toBe('');

    const requests = await sendFromEveryProvider(await store.list());
    // The kept key is still used; the providers that lost theirs send nothing at all.
    expect(requests.map((request) => readOrigin(request.url))).toEqual([
      'https://api.openai.com',
      'https://api.openai.com',
    ]);
    expect(requests[0]?.headers.authorization).toBe('Bearer sk-device-same-11111111');
    db.close();
  });
});

describe('keys in stored text', () => {
  it('leaves no stored key in an export without keys, even one a provider echoed into an error', async () => {
    const db = await openTestDb();
    const clock = createFrozenClock();
    const key = 'sk-echoed-9d8c7b6a5f4e';
    const provider = buildProvider({
      id: 'p1',
      preset: 'openai',
      origin: 'https://api.openai.com',
      path: '/v1',
      hasKey: true,
      hasHeader: false,
      updatedAt: 1,
    });
    await createProviderStore(db).put({ ...provider, ...bindKey(key, provider.baseUrl) });
    await createSessionStore(db, clock).create(buildSession({ title: `Chat about ${key}` }));
    const messages = createMessageStore(db, clock);
    await messages.put(buildUserMessage('u1', null));
    await messages.put(
      buildAssistantMessage('a1', 'u1', {
        status: 'error',
        error: {
          code: 'invalid_key',
          message: `OpenAI said: "Incorrect API key provided: ${key}."`,
        },
      }),
    );

    for (const scope of [
      { kind: 'all' },
      { kind: 'session', sessionId: asSessionId('s1') },
    ] as const) {
      const withoutKeys = await (
        await exportBackup(db, scope, clock, { includeApiKeys: false })
      ).text();
      expect(withoutKeys).not.toContain(key);
      expect(withoutKeys).toContain('Incorrect API key provided: [API key removed].');
    }
    const withKeys = await (
      await exportBackup(db, { kind: 'all' }, clock, { includeApiKeys: true })
    ).text();
    expect(withKeys).toContain(key);
    db.close();
  });
});
