import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../../../src/core/ports';
import { createEmbeddingHost } from '../../../../src/workers/embedding/embedding-host';
import type { EmbeddingProgress } from '../../../../src/workers/embedding/embedding.api';
import { EMBED_BATCH_SIZE } from '../../../../src/workers/embedding/embed-chunks';
import { createProjectSearch } from '../../../../src/workers/embedding/project-search';
import { createRagStores, fixtureInput, ingestAll, PROJECT } from '../rag-stores';
import { loadTinyEmbedder, TINY_MODEL_SETTINGS } from './tiny-model';

/** The tiny model, counting how many texts it embedded and able to stop after some batches. */
function countingEmbedder(
  inner: Embedder,
  modelId = inner.modelId,
  onBatch: () => void = () => undefined,
) {
  const counter = { texts: 0 };
  const embedder: Embedder = {
    modelId,
    async embed(texts, purpose, signal) {
      counter.texts += texts.length;
      const vectors = await inner.embed(texts, purpose, signal);
      onBatch();
      return vectors;
    },
  };
  return { embedder, counter };
}

async function ingestLongMarkdown() {
  const stores = await createRagStores();
  const sections = Array.from(
    { length: 40 },
    (_, i) =>
      `## Section ${i}\n\n${'The sourdough starter needs flour and water every day. '.repeat(8)}`,
  ).join('\n\n');
  const [outcome] = await ingestAll(
    stores,
    PROJECT,
    [{ name: 'long.md', mimeType: 'text/markdown', blob: new Blob([sections]) }],
    () => undefined,
  );
  if (outcome?.kind !== 'stored') throw new Error('expected stored');
  return { stores, fileId: outcome.fileId, chunkCount: outcome.chunkCount };
}

describe('createEmbeddingHost', () => {
  it('prepares the model and says how it runs', async () => {
    const stores = await createRagStores();
    const tiny = await loadTinyEmbedder();
    const host = createEmbeddingHost({ ...stores, loadEmbedder: () => Promise.resolve(tiny) });
    expect(await host.prepareModel('job', TINY_MODEL_SETTINGS, () => undefined)).toEqual({
      ok: true,
      value: { modelKey: tiny.modelId, runtime: 'onnxruntime-node (CPU)' },
    });
  });

  it('embeds every chunk of the project, saves the vectors and reports progress per batch', async () => {
    const { stores, fileId, chunkCount } = await ingestLongMarkdown();
    const tiny = await loadTinyEmbedder();
    const progress: EmbeddingProgress[] = [];
    const host = createEmbeddingHost({ ...stores, loadEmbedder: () => Promise.resolve(tiny) });
    const result = await host.embedProject('job', PROJECT, TINY_MODEL_SETTINGS, (event) =>
      progress.push(event),
    );
    expect(result).toEqual({ ok: true, value: { embedded: chunkCount, total: chunkCount } });
    const chunks = await stores.chunks.listByFile(fileId);
    expect(
      chunks.every(
        (chunk) => chunk.embedding?.length === 48 && chunk.embeddingModel === tiny.modelId,
      ),
    ).toBe(true);
    expect(await host.countEmbedded(PROJECT, TINY_MODEL_SETTINGS)).toEqual({
      embedded: chunkCount,
      total: chunkCount,
    });
    expect(
      await host.countEmbedded(PROJECT, { ...TINY_MODEL_SETTINGS, modelId: 'another-model' }),
    ).toEqual({ embedded: 0, total: chunkCount });
    const chunkEvents = progress.filter((event) => event.kind === 'chunks');
    expect(chunkEvents.length).toBe(1 + Math.ceil(chunkCount / EMBED_BATCH_SIZE));
    expect(chunkEvents.at(-1)).toMatchObject({ embedded: chunkCount, total: chunkCount });
  });

  it('keeps what was embedded when cancelled and resumes from there', async () => {
    const { stores, fileId, chunkCount } = await ingestLongMarkdown();
    expect(chunkCount).toBeGreaterThan(EMBED_BATCH_SIZE);
    const tiny = await loadTinyEmbedder();
    let host = createEmbeddingHost({
      ...stores,
      loadEmbedder: () => Promise.resolve(stopping.embedder),
    });
    let batches = 0;
    // Cancelled while the second batch is being embedded: only the first one is saved.
    const stopping = countingEmbedder(tiny, tiny.modelId, () => {
      if (++batches === 2) void host.cancel('first');
    });
    const cancelled = await host.embedFile('first', fileId, TINY_MODEL_SETTINGS, () => undefined);
    expect(cancelled).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    const saved = (await stores.chunks.listByFile(fileId)).filter(
      (chunk) => chunk.embedding !== null,
    );
    expect(saved).toHaveLength(EMBED_BATCH_SIZE);

    const resumed = countingEmbedder(tiny);
    host = createEmbeddingHost({
      ...stores,
      loadEmbedder: () => Promise.resolve(resumed.embedder),
    });
    expect(await host.embedFile('second', fileId, TINY_MODEL_SETTINGS, () => undefined)).toEqual({
      ok: true,
      value: { embedded: chunkCount, total: chunkCount },
    });
    expect(resumed.counter.texts).toBe(chunkCount - EMBED_BATCH_SIZE);
  });

  it('stops a model download when its only job is cancelled, and loads afresh next time', async () => {
    const stores = await createRagStores();
    const tiny = await loadTinyEmbedder();
    const loadSignals: AbortSignal[] = [];
    // The first load never ends on its own, as a download that is held up.
    const host = createEmbeddingHost({
      ...stores,
      loadEmbedder: (_settings, _onProgress, signal) => {
        loadSignals.push(signal);
        if (loadSignals.length > 1) return Promise.resolve(tiny);
        return new Promise<Embedder>((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
        );
      },
    });
    const preparing = host.prepareModel('download', TINY_MODEL_SETTINGS, () => undefined);
    await Promise.resolve();
    await host.cancel('download');
    const cancelled = await preparing;
    expect(cancelled).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(cancelled.ok ? '' : cancelled.error.message).toContain('download was cancelled');
    expect(loadSignals[0]?.aborted).toBe(true);
    expect(await host.prepareModel('again', TINY_MODEL_SETTINGS, () => undefined)).toMatchObject({ ok: true });
    expect(loadSignals).toHaveLength(2);
  });

  it('keeps downloading the model for the jobs still waiting when one of them is cancelled', async () => {
    const stores = await createRagStores();
    const tiny = await loadTinyEmbedder();
    let finishLoad: (embedder: Embedder) => void = () => undefined;
    let loadSignal: AbortSignal | undefined;
    const host = createEmbeddingHost({
      ...stores,
      loadEmbedder: (_settings, _onProgress, signal) => {
        loadSignal = signal;
        return new Promise<Embedder>((resolve) => (finishLoad = resolve));
      },
    });
    const settings = host.prepareModel('settings', TINY_MODEL_SETTINGS, () => undefined);
    const upload = host.prepareModel('upload', TINY_MODEL_SETTINGS, () => undefined);
    await Promise.resolve();
    await host.cancel('settings');
    expect(await settings).toMatchObject({ ok: false, error: { code: 'cancelled' } });
    expect(loadSignal?.aborted).toBe(false);
    finishLoad(tiny);
    expect(await upload).toMatchObject({ ok: true, value: { modelKey: tiny.modelId } });
  });

  it('re-embeds every chunk when the model changes', async () => {
    const { stores, fileId, chunkCount } = await ingestLongMarkdown();
    const tiny = await loadTinyEmbedder();
    await createEmbeddingHost({ ...stores, loadEmbedder: () => Promise.resolve(tiny) }).embedFile(
      'a',
      fileId,
      TINY_MODEL_SETTINGS,
      () => undefined,
    );
    const other = countingEmbedder(tiny, 'another-model');
    await createEmbeddingHost({
      ...stores,
      loadEmbedder: () => Promise.resolve(other.embedder),
    }).embedFile(
      'b',
      fileId,
      { ...TINY_MODEL_SETTINGS, modelId: 'another-model' },
      () => undefined,
    );
    expect(other.counter.texts).toBe(chunkCount);
    expect(
      (await stores.chunks.listByFile(fileId)).every(
        (chunk) => chunk.embeddingModel === 'another-model',
      ),
    ).toBe(true);
  });

  it('reports a model that cannot load with a clear error and a hint when downloads are off', async () => {
    const { stores, fileId } = await ingestLongMarkdown();
    const host = createEmbeddingHost({
      ...stores,
      loadEmbedder: () => Promise.reject(new Error('file not found')),
    });
    const result = await host.embedFile('job', fileId, TINY_MODEL_SETTINGS, () => undefined);
    expect(result).toMatchObject({ ok: false, error: { code: 'model_unavailable' } });
    expect(!result.ok && result.error.message).toMatch(
      /carrel\/tiny-embedder.*file not found.*Downloads are switched off/,
    );
  });
});

describe('a model download that cannot reach the network', () => {
  it('says to retry or to import the model folder, with its own code', async () => {
    const { stores, fileId } = await ingestLongMarkdown();
    const host = createEmbeddingHost({
      ...stores,
      loadEmbedder: () => Promise.reject(new TypeError('Failed to fetch')),
    });
    const result = await host.embedFile('job', fileId, TINY_MODEL_SETTINGS, () => undefined);
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'download_failed',
        message:
          'The embedding model carrel/tiny-embedder could not be downloaded: the network could not be reached (Failed to fetch). Retry when you are online, or import the model folder from disk in Settings › Embeddings.',
      },
    });
    // The next attempt tries again rather than keeping the failure.
    const retried = await host.prepareModel('again', TINY_MODEL_SETTINGS, () => undefined);
    expect(retried).toMatchObject({ ok: false, error: { code: 'download_failed' } });
  });
});

describe('createProjectSearch', () => {
  it('searches by keywords before embeddings exist, then hybrid, with file, passage and location', async () => {
    const stores = await createRagStores();
    await ingestAll(
      stores,
      PROJECT,
      [fixtureInput('report.pdf'), fixtureInput('minutes.docx'), fixtureInput('article.html')],
      () => undefined,
    );
    const tiny = await loadTinyEmbedder();
    const search = createProjectSearch({ ...stores, loadEmbedder: () => Promise.resolve(tiny) });
    const signal = new AbortController().signal;
    const before = await search.search(PROJECT, ['Lisbon office'], signal);
    expect(before.mode).toBe('keyword');
    expect(before.hits[0]).toMatchObject({
      fileName: 'report.pdf',
      location: expect.stringMatching(/^p\. 3 · chars \d+–\d+$/) as unknown,
    });
    await createEmbeddingHost({
      ...stores,
      loadEmbedder: () => Promise.resolve(tiny),
    }).embedProject('job', PROJECT, TINY_MODEL_SETTINGS, () => undefined);
    const after = await search.search(PROJECT, ['Lisbon office', 'release date'], signal);
    expect(after.mode).toBe('hybrid');
    expect(after.hits.map((hit) => hit.fileName)).toContain('minutes.docx');
  });

  it('falls back to keywords when the model cannot load', async () => {
    const stores = await createRagStores();
    await ingestAll(stores, PROJECT, [fixtureInput('minutes.docx')], () => undefined);
    const search = createProjectSearch({
      ...stores,
      loadEmbedder: () => Promise.reject(new Error('offline')),
    });
    const result = await search.search(PROJECT, ['migration guide'], new AbortController().signal);
    expect(result.mode).toBe('keyword');
    expect(result.hits[0]?.text).toContain('Marta will write the migration guide');
  });
});
