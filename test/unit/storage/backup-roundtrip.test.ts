import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  asFileId,
  asMessageId,
  asProjectId,
  asProviderId,
  asSessionId,
  type ChatMessageSimple,
} from '../../../src/core/model';
import { THEMES } from '../../../src/core/model/settings';
import { createBackupService } from '../../../src/storage/backup/backup';
import { createChunkStore } from '../../../src/storage/chunk.store';
import type { CarrelDb } from '../../../src/storage/db';
import { createFileStore } from '../../../src/storage/file.store';
import { createMessageStore } from '../../../src/storage/message.store';
import { createProjectStore } from '../../../src/storage/project.store';
import { createPromptStore } from '../../../src/storage/prompt.store';
import { createProviderStore } from '../../../src/storage/provider.store';
import { createSessionStore } from '../../../src/storage/session.store';
import { createSettingsStore } from '../../../src/storage/settings.store';
import { createSummaryStore } from '../../../src/storage/summary.store';
import { createUsageStore } from '../../../src/storage/usage.store';
import { dumpDatabase, wipeDatabase } from './backup-helpers';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  createSequentialIds,
  openTestDb,
} from './storage-fixtures';

/** Any unicode, lone surrogates and the empty string included. */
const anyText = fc.string({ unit: 'binary', maxLength: 10 });

const sessionArbitrary = fc.record({
  title: anyText,
  isPinned: fc.boolean(),
  // Each message's parent, as an offset back from it: 1 everywhere is one deep branch.
  parentOffsets: fc.oneof(
    fc.array(fc.nat({ max: 4 }), { maxLength: 8 }),
    fc.integer({ min: 20, max: 40 }).map((length) => Array<number>(length).fill(0)),
  ),
  texts: fc.array(anyText, { minLength: 1, maxLength: 4 }),
  // Compaction summaries, each up to a message (an index, wrapped), some undone.
  summaries: fc.array(
    fc.record({
      upTo: fc.nat(),
      text: fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }),
      undoneAt: fc.option(fc.nat(), { nil: undefined }),
    }),
    { maxLength: 2 },
  ),
});

const databaseArbitrary = fc.record({
  sessions: fc.array(sessionArbitrary, { maxLength: 3 }),
  files: fc.array(
    fc.record({
      name: anyText,
      bytes: fc.uint8Array({ maxLength: 40 }),
      text: fc.option(anyText, { nil: undefined }),
      embeddings: fc.array(fc.option(fc.float32Array({ maxLength: 6 }), { nil: null }), {
        maxLength: 3,
      }),
    }),
    { maxLength: 2 },
  ),
  providerKeys: fc.array(anyText, { maxLength: 2 }),
  prompts: fc.array(
    fc.record({
      title: fc.stringMatching(/^[a-z]{1,8}$/),
      text: fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }),
    }),
    { maxLength: 2 },
  ),
  // Values the settings forms can save, plus keys no schema covers (kept as any value).
  settings: fc.record(
    {
      systemPrompt: fc.option(anyText, { nil: null }),
      theme: fc.constantFrom(...THEMES),
      defaultModel: fc.option(
        fc.record({
          providerId: fc.constant(asProviderId('prov0')),
          modelId: fc.string({ minLength: 1 }),
        }),
        { nil: null },
      ),
      tokenCalibration: fc.dictionary(
        fc.stringMatching(/^[a-z]{1,4}\/[a-z]{1,4}$/),
        fc.float({ min: Math.fround(0.1), max: 10, noNaN: true }),
      ),
    },
    { requiredKeys: [] },
  ),
});

type GeneratedDatabase = typeof databaseArbitrary extends fc.Arbitrary<infer T> ? T : never;

async function writeDatabase(db: CarrelDb, generated: GeneratedDatabase): Promise<void> {
  const clock = createFrozenClock();
  const sessions = createSessionStore(db, clock);
  const messages = createMessageStore(db, clock);
  const usage = createUsageStore(db, clock, createSequentialIds('usage'));
  const summaries = createSummaryStore(db);
  await createProjectStore(db, clock).put({
    id: asProjectId('p'),
    name: 'Project',
    instructions: '',
    defaultModel: null,
    defaultAgentId: null,
    createdAt: 1,
    updatedAt: 1,
  });
  for (const [sessionIndex, generatedSession] of generated.sessions.entries()) {
    const sessionId = asSessionId(`s${sessionIndex}`);
    await sessions.create(
      buildSession({
        id: sessionId,
        title: generatedSession.title,
        isPinned: generatedSession.isPinned,
        projectId: asProjectId('p'),
      }),
    );
    const count = Math.max(1, generatedSession.parentOffsets.length);
    const parents: (string | null)[] = [];
    for (let index = 0; index < count; index += 1) {
      const id = `s${sessionIndex}-m${index}`;
      const offset = (generatedSession.parentOffsets[index] ?? 0) + 1;
      const parent = index - offset < 0 ? null : `s${sessionIndex}-m${index - offset}`;
      parents.push(parent);
      const text = generatedSession.texts[index % generatedSession.texts.length] ?? '';
      const message: ChatMessageSimple =
        index % 2 === 0
          ? buildUserMessage(id, parent, { sessionId, text, createdAt: index })
          : buildAssistantMessage(id, parent, {
              sessionId,
              createdAt: index,
              steps: [{ text, textTokenCount: text.length, toolCalls: [] }],
            });
      await messages.put(message);
    }
    for (const [summaryIndex, summary] of generatedSession.summaries.entries()) {
      const last = summary.upTo % count;
      const covered: string[] = [];
      for (let id: string | null = `s${sessionIndex}-m${last}`; id !== null;) {
        covered.unshift(id);
        id = parents[Number(id.split('-m')[1])] ?? null;
      }
      await summaries.add({
        id: `s${sessionIndex}-summary${summaryIndex}`,
        sessionId,
        lastMessageId: asMessageId(`s${sessionIndex}-m${last}`),
        coveredIds: covered.map(asMessageId),
        previousSummaryId:
          summaryIndex === 0 ? null : `s${sessionIndex}-summary${summaryIndex - 1}`,
        text: summary.text,
        tokenCount: summary.text.length,
        model: { providerId: asProviderId('prov0'), modelId: 'small' },
        createdAt: summaryIndex,
        ...(summary.undoneAt === undefined ? {} : { undoneAt: summary.undoneAt }),
      });
    }
    await usage.record({
      sessionId,
      messageId: asMessageId(`s${sessionIndex}-m0`),
      model: { providerId: asProviderId('prov0'), modelId: 'm' },
      usage: { inputTokens: sessionIndex, outputTokens: 1 },
    });
  }
  const files = createFileStore(db);
  const chunks = createChunkStore(db);
  for (const [fileIndex, file] of generated.files.entries()) {
    const fileId = asFileId(`f${fileIndex}`);
    await files.put({
      id: fileId,
      projectId: fileIndex === 0 ? null : asProjectId('p'),
      name: file.name,
      mimeType: 'application/octet-stream',
      sizeBytes: file.bytes.length,
      hash: `h${fileIndex}`,
      blob: new Blob([file.bytes], { type: 'application/octet-stream' }),
      status: 'ready',
      ...(file.text === undefined ? {} : { text: file.text }),
      tokenCount: 0,
      createdAt: 1,
      updatedAt: 1,
    });
    await chunks.replaceForFile(
      fileId,
      file.embeddings.map((embedding, ordinal) => ({
        id: `f${fileIndex}-c${ordinal}`,
        fileId,
        projectId: null,
        ordinal,
        text: file.text ?? '',
        tokenCount: 0,
        embedding,
        embeddingModel: embedding === null ? null : 'model',
      })),
    );
  }
  const providers = createProviderStore(db);
  for (const [index, apiKey] of generated.providerKeys.entries()) {
    await providers.put({
      id: asProviderId(`prov${index}`),
      name: 'Provider',
      kind: 'openai-compatible',
      preset: 'custom',
      baseUrl: 'https://example.test/v1',
      apiKey,
      headers: {},
      models: [],
      contextWindowOverrides: {},
      createdAt: 1,
      updatedAt: 1,
    });
  }
  const settings = createSettingsStore(db, clock);
  for (const [key, value] of Object.entries(generated.settings)) await settings.set(key, value);
  const prompts = createPromptStore(db);
  for (const [index, prompt] of generated.prompts.entries())
    await prompts.put({ id: `prompt${index}`, ...prompt, createdAt: index, updatedAt: index });
}

describe('backup round trip', () => {
  it('restores any database exactly after export, wipe and import, API keys excluded', async () => {
    const db = await openTestDb();
    const backup = createBackupService(db, createFrozenClock());
    await fc.assert(
      fc.asyncProperty(databaseArbitrary, async (generated) => {
        await wipeDatabase(db);
        await writeDatabase(db, generated);
        const before = await dumpDatabase(db);
        const file = await backup.exportBackup({ kind: 'all' });

        await wipeDatabase(db);
        await backup.importBackup(file);

        const expected = {
          ...before,
          providers: before.providers?.map((p) => ({ ...(p as object), apiKey: '' })),
        };
        expect(await dumpDatabase(db)).toEqual(expected);
      }),
      // 500 generated databases: 61-133 s on this 2-core machine at a load of 10-17 (every write
      // also records its sync change), hence a limit well above that.
      { numRuns: 500 },
    );
  }, 300_000);

  it('keeps API keys in the file only when asked to', async () => {
    const db = await openTestDb();
    await writeDatabase(db, {
      sessions: [],
      files: [],
      providerKeys: ['sk-secret'],
      settings: {},
      prompts: [],
    });
    const backup = createBackupService(db, createFrozenClock());
    expect(await (await backup.exportBackup({ kind: 'all' })).text()).not.toContain('sk-secret');
    const withKeys = await backup.exportBackup({ kind: 'all' }, { includeApiKeys: true });
    await wipeDatabase(db);
    await backup.importBackup(withKeys);
    expect(await createProviderStore(db).get(asProviderId('prov0'))).toMatchObject({
      apiKey: 'sk-secret',
    });
  });
});
