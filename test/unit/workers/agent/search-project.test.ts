import { describe, expect, it, vi } from 'vitest';
import { asProjectId } from '../../../../src/core/model';
import type { Embedder } from '../../../../src/core/ports';
import { createStores } from '../../../../src/storage';
import { createEmbeddingHost } from '../../../../src/workers/embedding/embedding-host';
import { MAX_PROJECT_QUERY_CHARS } from '../../../../src/workers/agent/agent.api';
import { buildFrozenClock } from '../../../builders/clock';
import { scripts } from '../../../fakes/scripted-llm-client';
import { TestAgent } from '../../../fakes/test-agent';
import { loadTinyEmbedder, TINY_MODEL_SETTINGS } from '../embedding/tiny-model';
import { fixtureInput, ingestAll } from '../rag-stores';

const PROJECT = asProjectId('project-search');

/** The real agent host over real stores, with these files ingested (and embedded, if asked). */
async function createSearchHost(options: {
  files: string[];
  loadQueryEmbedder?: () => Promise<Embedder | null>;
  embedWith?: Embedder;
  /** An agent made by the caller, to reach its database. */
  agent?: TestAgent;
}) {
  const agent =
    options.agent ??
    (await TestAgent.create(
      options.loadQueryEmbedder ? { loadQueryEmbedder: options.loadQueryEmbedder } : {},
    ));
  let id = 0;
  const clock = buildFrozenClock();
  const ids = { newId: () => `file-${++id}` };
  const stores = createStores(agent.db, clock, ids);
  await ingestAll(
    { ...stores, tokens: agent.tokens, clock, ids },
    PROJECT,
    options.files.map((name) => fixtureInput(name)),
    () => undefined,
  );
  if (options.embedWith) {
    const embedder = options.embedWith;
    await createEmbeddingHost({
      ...stores,
      loadEmbedder: () => Promise.resolve(embedder),
    }).embedProject('embed', PROJECT, TINY_MODEL_SETTINGS, () => undefined);
  }
  return agent.api;
}

/** An agent whose project search loads the tiny query model, counting how often it is asked to. */
async function createCountingAgent() {
  const tiny = await loadTinyEmbedder();
  let count = 0;
  const agent = await TestAgent.create({
    loadQueryEmbedder: () => {
      count++;
      return Promise.resolve(tiny);
    },
  });
  return { tiny, agent, loads: () => count };
}

/** An embedder that never answers until its signal aborts, like a slow model mid-query. */
function createStalledEmbedder(modelId: string): Embedder & { started: Promise<void> } {
  let markStarted = (): void => undefined;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  return {
    modelId,
    started,
    embed(_texts, _purpose, signal) {
      markStarted();
      return new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    },
  };
}

describe('the agent host: searchProject', () => {
  it('finds passages by keywords before embeddings exist, with file, passage and page', async () => {
    const api = await createSearchHost({ files: ['report.pdf', 'corpus/coffee.md'] });
    const result = await api.searchProject('s1', {
      projectId: PROJECT,
      query: '  Lisbon office  ',
    });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.mode).toBe('keyword');
    expect(result.value.keywordOnlyReason).toBe('not_embedded');
    expect(result.value.hits[0]).toMatchObject({
      fileName: 'report.pdf',
      text: expect.stringContaining('Lisbon office to open in March') as unknown,
      location: expect.stringMatching(/^p\. 3 · chars \d+–\d+$/) as unknown,
    });
    expect(result.value.hits.map((hit) => hit.fileName)).not.toContain('corpus/coffee.md');
  });

  it('searches by keywords and meaning once the passages carry vectors of the loaded model', async () => {
    const tiny = await loadTinyEmbedder();
    const api = await createSearchHost({
      files: ['corpus/coffee.md', 'minutes.docx'],
      embedWith: tiny,
      loadQueryEmbedder: () => Promise.resolve(tiny),
    });
    const result = await api.searchProject('s1', { projectId: PROJECT, query: 'espresso grind' });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value).toMatchObject({ mode: 'hybrid', keywordOnlyReason: null });
    expect(result.value.hits[0]).toMatchObject({
      fileName: 'corpus/coffee.md',
      text: expect.stringContaining('Espresso needs a fine grind') as unknown,
      location: 'Brewing coffee · chars 0–228',
    });
  });

  it('loads the query model ahead for a project whose stored index is current, and ignores an id that does not parse', async () => {
    const { tiny, agent, loads } = await createCountingAgent();
    const api = await createSearchHost({ files: ['corpus/coffee.md'], embedWith: tiny, agent });
    // Nothing stored yet: opening the project reads and loads nothing.
    await api.prepareProjectSearch(PROJECT);
    expect(loads()).toBe(0);
    const result = await api.searchProject('s1', { projectId: PROJECT, query: 'espresso grind' });
    expect(result.ok && result.value.mode).toBe('hybrid');
    // The first search stores the joined index in the background.
    await vi.waitFor(async () => expect((await agent.db.searchSnapshots.get(PROJECT))?.snapshot).toBeTruthy());
    const before = loads();
    await api.prepareProjectSearch(PROJECT);
    expect(loads()).toBeGreaterThan(before);
    await expect(api.prepareProjectSearch('')).resolves.toBeUndefined();
  });

  it("loads the project's query model as a turn whose files are searched begins, before any search", async () => {
    const { tiny, agent, loads } = await createCountingAgent();
    // A window too small for the files: the turn offers search_project instead of inlining them.
    await agent.addProvider({ contextWindowOverrides: { 'gpt-4o-mini': 4_000 } });
    const corpus = ['beekeeping', 'bicycle', 'coffee', 'expenses', 'kubernetes', 'photosynthesis', 'router', 'sourdough'];
    const api = await createSearchHost({ files: corpus.map((name) => `corpus/${name}.md`), embedWith: tiny, agent });
    await api.searchProject('s1', { projectId: PROJECT, query: 'espresso grind' });
    await vi.waitFor(async () => expect((await agent.db.searchSnapshots.get(PROJECT))?.snapshot).toBeTruthy());
    await createStores(agent.db, buildFrozenClock(), { newId: () => 'project-row' }).projects.put({
      id: PROJECT,
      name: 'Coffee',
      instructions: '',
      defaultModel: null,
      defaultAgentId: null,
      createdAt: 1,
      updatedAt: 1,
    });
    const before = loads();
    const turn = await agent.script(scripts.text('Fine, then.')).send('How fine a grind?', { projectId: PROJECT });
    expect(turn.result.ok).toBe(true);
    expect(agent.llm.requests[0]?.tools.map((tool) => tool.name)).toContain('search_project');
    expect(loads()).toBeGreaterThan(before);
  });

  it('says the model is unavailable when vectors exist but the query model cannot load', async () => {
    const api = await createSearchHost({
      files: ['corpus/coffee.md'],
      embedWith: await loadTinyEmbedder(),
      loadQueryEmbedder: () => Promise.resolve(null),
    });
    const result = await api.searchProject('s1', { projectId: PROJECT, query: 'table salt' });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.mode).toBe('keyword');
    expect(result.value.keywordOnlyReason).toBe('model_unavailable');
    expect(result.value.hits[0]?.text).toContain('Espresso needs a fine grind');
  });

  it('says the passages are not embedded when their vectors come from another model', async () => {
    const tiny = await loadTinyEmbedder();
    const other: Embedder = {
      modelId: 'another-model',
      embed: (texts, purpose, signal) => tiny.embed(texts, purpose, signal),
    };
    const api = await createSearchHost({
      files: ['corpus/coffee.md'],
      embedWith: tiny,
      loadQueryEmbedder: () => Promise.resolve(other),
    });
    const result = await api.searchProject('s1', { projectId: PROJECT, query: 'espresso' });
    expect(result).toMatchObject({
      ok: true,
      value: { mode: 'keyword', keywordOnlyReason: 'not_embedded' },
    });
  });

  it('answers a project without readable text with no hits, and says why', async () => {
    const api = await createSearchHost({ files: [] });
    const result = await api.searchProject('s1', { projectId: PROJECT, query: 'anything' });
    expect(result).toEqual({
      ok: true,
      value: { mode: 'keyword', keywordOnlyReason: 'no_passages', hits: [] },
    });
  });

  it('refuses an empty or oversized query with a clear error instead of searching', async () => {
    const api = await createSearchHost({ files: ['corpus/coffee.md'] });
    expect(await api.searchProject('s1', { projectId: PROJECT, query: '   ' })).toEqual({
      ok: false,
      error: { code: 'invalid_request', message: 'Type something to search for.' },
    });
    const long = await api.searchProject('s2', {
      projectId: PROJECT,
      query: 'x'.repeat(MAX_PROJECT_QUERY_CHARS + 1),
    });
    expect(long).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', message: expect.stringContaining('at most') as unknown },
    });
    expect(await api.searchProject('s3', { projectId: '', query: 'espresso' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request' },
    });
  });

  it('cancels a running search by its id: the embedding stops and the answer is aborted', async () => {
    const tiny = await loadTinyEmbedder();
    const stalled = createStalledEmbedder(tiny.modelId);
    const api = await createSearchHost({
      files: ['corpus/coffee.md'],
      embedWith: tiny,
      loadQueryEmbedder: () => Promise.resolve(stalled),
    });
    const running = api.searchProject('superseded', { projectId: PROJECT, query: 'espresso' });
    await stalled.started;
    await api.cancelProjectSearch('another-id');
    await api.cancelProjectSearch('superseded');
    expect(await running).toEqual({
      ok: false,
      error: { code: 'aborted', message: 'The search was cancelled.' },
    });
  });
});
