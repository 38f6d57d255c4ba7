import { describe, expect, it } from 'vitest';
import {
  asAgentId,
  asFileId,
  asMessageId,
  asProjectId,
  asProviderId,
  asSessionId,
  type Agent,
  type Project,
  type ProviderConfig,
} from '../../../src/core/model';
import type { StoredFile, TextChunk } from '../../../src/core/ports';
import { createAgentStore } from '../../../src/storage/agent.store';
import { createChunkStore } from '../../../src/storage/chunk.store';
import { createFileStore } from '../../../src/storage/file.store';
import { createMessageStore } from '../../../src/storage/message.store';
import { createProjectStore } from '../../../src/storage/project.store';
import { createProviderStore } from '../../../src/storage/provider.store';
import { createSessionStore } from '../../../src/storage/session.store';
import { createSettingsStore } from '../../../src/storage/settings.store';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  openTestDb,
} from './storage-fixtures';

const project: Project = {
  id: asProjectId('p1'),
  name: 'Thesis',
  instructions: 'Answer in French.',
  defaultModel: null,
  defaultAgentId: null,
  createdAt: 5,
  updatedAt: 5,
};

function buildFile(id: string, overrides: Partial<StoredFile> = {}): StoredFile {
  return {
    id: asFileId(id),
    projectId: asProjectId('p1'),
    name: `${id}.txt`,
    mimeType: 'text/plain',
    sizeBytes: 5,
    hash: `hash-${id}`,
    blob: new Blob(['hello'], { type: 'text/plain' }),
    status: 'ready',
    text: 'hello',
    tokenCount: 1,
    pageMap: [{ page: 1, offset: 0 }],
    createdAt: 1,
    updatedAt: 1,
    ...overrides,
  };
}

function buildChunk(id: string, ordinal: number, embedding: Float32Array | null): TextChunk {
  return {
    id,
    fileId: asFileId('f1'),
    projectId: asProjectId('p1'),
    ordinal,
    text: `chunk ${ordinal}`,
    tokenCount: 2,
    location: `p. ${ordinal + 1}`,
    embedding,
    embeddingModel: embedding === null ? null : 'minilm',
  };
}

describe('provider, agent and project stores', () => {
  it('round-trips a provider with its API key', async () => {
    const db = await openTestDb();
    const providers = createProviderStore(db);
    const provider: ProviderConfig = {
      id: asProviderId('openai'),
      name: 'OpenAI',
      kind: 'openai',
      preset: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-secret',
      headers: {},
      models: ['gpt-4o'],
      contextWindowOverrides: { 'gpt-4o': 64000 },
      createdAt: 1,
      updatedAt: 1,
    };
    await providers.put(provider);
    expect(await providers.get(provider.id)).toEqual(provider);
    expect(await providers.list()).toEqual([provider]);
    await providers.delete(provider.id);
    expect(await providers.list()).toEqual([]);
  });

  it('round-trips agents in creation order', async () => {
    const db = await openTestDb();
    const agents = createAgentStore(db);
    const build = (id: string, createdAt: number): Agent => ({
      id: asAgentId(id),
      name: id,
      prompt: '',
      shouldReplaceSystemPrompt: false,
      reminders: ['Be brief.'],
      defaultModel: null,
      enabledTools: ['search'],
      historyStrategy: { kind: 'buffered', size: 4 },
      isBuiltIn: false,
      createdAt,
      updatedAt: createdAt,
    });
    await agents.put(build('second', 2));
    await agents.put(build('first', 1));
    expect((await agents.list()).map((a) => a.id)).toEqual(['first', 'second']);
    expect(await agents.get(asAgentId('second'))).toEqual(build('second', 2));
  });

  it('deletes a project with its files and chunks but keeps its chats as ordinary chats', async () => {
    const db = await openTestDb();
    const clock = createFrozenClock(500);
    const projects = createProjectStore(db, clock);
    const sessions = createSessionStore(db, clock);
    const files = createFileStore(db);
    const chunks = createChunkStore(db);
    await projects.put(project);
    await sessions.create(buildSession({ projectId: project.id }));
    await files.put(buildFile('f1'));
    await chunks.replaceForFile(asFileId('f1'), [buildChunk('c1', 0, null)]);
    await projects.delete(project.id);
    expect(await projects.get(project.id)).toBeUndefined();
    expect(await files.get(asFileId('f1'))).toBeUndefined();
    expect(await db.fileTexts.count()).toBe(0);
    expect(await chunks.listByProject(project.id)).toEqual([]);
    expect(await sessions.get(asSessionId('s1'))).toMatchObject({
      projectId: null,
      version: 1,
      updatedAt: 500,
    });
  });
});

describe('file and chunk stores', () => {
  it('keeps the blob, page map and status of a file and finds it by hash', async () => {
    const db = await openTestDb();
    const files = createFileStore(db);
    await files.put(buildFile('f1'));
    await files.put(buildFile('f2', { hash: 'hash-f1', createdAt: 2 }));
    const stored = await files.get(asFileId('f1'));
    expect(stored).toMatchObject({
      name: 'f1.txt',
      status: 'ready',
      pageMap: [{ page: 1, offset: 0 }],
    });
    expect(await stored?.blob.text()).toBe('hello');
    expect((await files.findByHash('hash-f1')).map((f) => f.id).sort()).toEqual(['f1', 'f2']);
    expect((await files.listByProject(asProjectId('p1'))).map((f) => f.id)).toEqual(['f1', 'f2']);
  });

  it("lists a project's file ids and names by id, as renamed, without the deleted ones or another project's", async () => {
    const db = await openTestDb();
    const files = createFileStore(db);
    await files.put(buildFile('f2', { name: 'zeta.md', createdAt: 1 }));
    await files.put(buildFile('f1', { name: 'alpha.md', createdAt: 2 }));
    await files.put(buildFile('f3', { name: 'alpha.md', createdAt: 3 }));
    await files.put(buildFile('f4', { projectId: asProjectId('p2'), name: 'other.md' }));
    await files.put(buildFile('f5', { projectId: null, name: 'loose.md' }));
    expect(await files.listNamesByProject(asProjectId('p1'))).toEqual([
      { id: 'f1', name: 'alpha.md' },
      { id: 'f2', name: 'zeta.md' },
      { id: 'f3', name: 'alpha.md' },
    ]);
    const renamed = await files.get(asFileId('f2'));
    if (renamed === undefined) throw new Error('expected f2');
    await files.put({ ...renamed, name: 'beta.md' });
    await files.delete(asFileId('f3'));
    expect(await files.listNamesByProject(asProjectId('p1'))).toEqual([
      { id: 'f1', name: 'alpha.md' },
      { id: 'f2', name: 'beta.md' },
    ]);
    expect(await files.listNamesByProject(asProjectId('p2'))).toEqual([{ id: 'f4', name: 'other.md' }]);
    expect(await files.listNamesByProject(asProjectId('none'))).toEqual([]);
  });

  it('lists files without their text, and keeps the text apart from the file row', async () => {
    const db = await openTestDb();
    const files = createFileStore(db);
    await files.put(buildFile('f1', { text: 'x'.repeat(10_000) }));
    await files.put(buildFile('f2', { createdAt: 2, status: 'error', error: 'unreadable' }));
    const listed = await files.listInfoByProject(asProjectId('p1'));
    expect(listed.map((file) => [file.id, file.status])).toEqual([
      ['f1', 'ready'],
      ['f2', 'error'],
    ]);
    for (const file of listed) {
      expect(file).not.toHaveProperty('text');
      expect(file).not.toHaveProperty('blob');
      expect(file).not.toHaveProperty('pageMap');
    }
    // One file alone, the same way, as an upload lists each file it stored.
    expect(await files.getInfo(asFileId('f2'))).toEqual(listed[1]);
    expect(await files.getInfo(asFileId('f1'))).not.toHaveProperty('text');
    expect(await files.getInfo(asFileId('gone'))).toBeUndefined();
    // IndexedDB returns whole rows: the listing is cheap only if the row holds no text.
    expect(await db.files.get('f1')).not.toHaveProperty('text');
    expect((await files.get(asFileId('f1')))?.text).toHaveLength(10_000);
    expect((await files.listByProject(asProjectId('p1')))[1]).toMatchObject({
      error: 'unreadable',
      text: 'hello',
    });
  });

  it('counts a project\'s chunks, and those with a vector of a given model, without reading them', async () => {
    const db = await openTestDb();
    const chunks = createChunkStore(db);
    const vector = new Float32Array([1, 0]);
    await chunks.replaceForFile(asFileId('f1'), [
      buildChunk('a', 0, vector),
      buildChunk('b', 1, null),
      { ...buildChunk('c', 2, vector), embeddingModel: 'other' },
      // A model name without a vector is not a vector of that model.
      { ...buildChunk('d', 3, null), embeddingModel: 'minilm' },
    ]);
    await chunks.replaceForFile(asFileId('f9'), [
      { ...buildChunk('e', 0, vector), projectId: asProjectId('p2') },
    ]);
    expect(await chunks.countByProject(asProjectId('p1'), 'minilm')).toEqual({
      total: 4,
      embedded: 1,
    });
    expect(await chunks.countByProject(asProjectId('p2'), 'minilm')).toEqual({
      total: 1,
      embedded: 1,
    });
  });

  it('deletes a file with its chunks', async () => {
    const db = await openTestDb();
    const files = createFileStore(db);
    const chunks = createChunkStore(db);
    await files.put(buildFile('f1'));
    await chunks.replaceForFile(asFileId('f1'), [buildChunk('c1', 0, null)]);
    await files.delete(asFileId('f1'));
    expect(await chunks.listByFile(asFileId('f1'))).toEqual([]);
    expect(await db.fileTexts.get('f1')).toBeUndefined();
  });

  it('stores embeddings as their exact float bytes, even from a view on a larger buffer', async () => {
    const db = await openTestDb();
    const chunks = createChunkStore(db);
    const backing = new Float32Array([9, 0.5, -1.25, 3e-8, 9]);
    const view = backing.subarray(1, 4);
    await chunks.replaceForFile(asFileId('f1'), [
      buildChunk('c2', 1, null),
      buildChunk('c1', 0, view),
    ]);
    const [first, second] = await chunks.listByFile(asFileId('f1'));
    expect(first?.embedding).toEqual(new Float32Array([0.5, -1.25, 3e-8]));
    expect(first?.embeddingModel).toBe('minilm');
    expect(second?.embedding).toBeNull();
  });

  it('replaces every chunk of a file when the file is re-chunked', async () => {
    const db = await openTestDb();
    const chunks = createChunkStore(db);
    await chunks.replaceForFile(asFileId('f1'), [
      buildChunk('a', 0, null),
      buildChunk('b', 1, null),
    ]);
    await chunks.replaceForFile(asFileId('f1'), [buildChunk('c', 0, null)]);
    expect((await chunks.listByFile(asFileId('f1'))).map((c) => c.id)).toEqual(['c']);
  });
});

describe('settings and usage stores', () => {
  it('stores any structured value under an unregistered key and deletes it', async () => {
    const db = await openTestDb();
    const settings = createSettingsStore(db, createFrozenClock());
    await settings.set('scratch', { mode: 'dark', sizes: [1, 2] });
    expect(await settings.get<{ mode: string }>('scratch')).toEqual({ mode: 'dark', sizes: [1, 2] });
    expect(await settings.get('missing')).toBeUndefined();
    await settings.delete('scratch');
    expect(await settings.get('scratch')).toBeUndefined();
  });

  it("refuses a registered setting's value that its schema does not accept", async () => {
    const db = await openTestDb();
    const settings = createSettingsStore(db, createFrozenClock());
    await settings.set('systemPrompt', 'Be brief.');
    await expect(settings.set('systemPrompt', 42)).rejects.toMatchObject({
      code: 'invalid_data',
      message: expect.stringContaining('"systemPrompt"') as unknown,
    });
    await expect(settings.set('theme', { mode: 'dark' })).rejects.toMatchObject({
      code: 'invalid_data',
    });
    expect(await settings.get('systemPrompt')).toBe('Be brief.');
  });

  it('reads a stored value its registered schema refuses as absent, so readers use the default', async () => {
    const db = await openTestDb();
    // As an older version (or a write around the store) may have left it.
    await db.settings.put({ key: 'systemPrompt', value: 42, updatedAt: 1 });
    await db.settings.put({ key: 'theme', value: 'dark', updatedAt: 1 });
    const settings = createSettingsStore(db, createFrozenClock());
    expect(await settings.get('systemPrompt')).toBeUndefined();
    expect(await settings.get('theme')).toBe('dark');
  });

});

describe('message rows', () => {
  it('gives back exactly the message that was saved, user and assistant alike', async () => {
    const db = await openTestDb();
    await createSessionStore(db, createFrozenClock()).create(buildSession());
    const messages = createMessageStore(db, createFrozenClock());
    const user = buildUserMessage('u1', null, {
      attachments: [
        {
          fileId: asFileId('f1'),
          name: 'a.txt',
          mimeType: 'text/plain',
          kind: 'text',
          sizeBytes: 3,
          tokenCount: 2,
          status: 'ready',
          text: 'abc',
        },
      ],
    });
    const assistant = buildAssistantMessage('a1', 'u1', {
      steps: [
        {
          reasoning: { text: 'thinking', tokenCount: 2, providerState: { signature: 'x' } },
          text: 'Let me search.',
          textTokenCount: 3,
          toolCalls: [
            {
              id: 't1',
              name: 'search',
              argumentsText: '{"q":"x"}',
              argumentsTokenCount: 4,
              status: 'complete',
              result: { content: '[]', tokenCount: 1, isError: false },
            },
          ],
        },
        { text: 'Done [1].', textTokenCount: 3, toolCalls: [] },
      ],
      status: 'error',
      error: { code: 'rate_limited', message: 'Slow down' },
      model: { providerId: asProviderId('openai'), modelId: 'gpt-x' },
      usage: { inputTokens: 10, outputTokens: 5 },
      citations: [{ number: 1, title: 'Doc' }],
    });
    await messages.put(user);
    await messages.put(assistant);
    expect(await messages.get(user.id)).toEqual(user);
    expect(await messages.get(assistant.id)).toEqual(assistant);
    const row = await db.messages.get('a1');
    expect(row).toMatchObject({ parentId: 'u1', tokenCount: 13, lineId: 'u1', depth: 1 });
    // The answer's text lives in its steps only: a second copy doubled what chain loads read.
    expect(row).not.toHaveProperty('text');
    expect(await db.messages.get('u1')).toMatchObject({
      parentId: '',
      status: 'complete',
      tokenCount: 5,
    });
  });

  it('reports a corrupted row as invalid_data instead of passing it on', async () => {
    const db = await openTestDb();
    await createSessionStore(db, createFrozenClock()).create(buildSession());
    const messages = createMessageStore(db, createFrozenClock());
    await messages.put(buildUserMessage('u1', null));
    await db.messages.update('u1', { textTokenCount: -4 });
    await expect(messages.get(asMessageId('u1'))).rejects.toMatchObject({
      code: 'invalid_data',
      message: expect.stringContaining('textTokenCount') as unknown,
    });
  });
});
