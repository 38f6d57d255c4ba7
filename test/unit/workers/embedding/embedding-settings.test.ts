import { describe, expect, it } from 'vitest';
import type { Embedder } from '../../../../src/core/ports';
import {
  DEFAULT_EMBEDDING_SETTINGS,
  EMBEDDING_SETTINGS_KEY,
  embeddingModelKey,
  readEmbeddingSettings,
} from '../../../../src/workers/embedding/embedding-models';
import { normalizeModelPaths } from '../../../../src/workers/embedding/model-cache';
import {
  createQueryEmbedderLoader,
  QUERY_EMBEDDER_RETRY_MS,
} from '../../../../src/workers/embedding/query-embedder';
import { createRagStores } from '../rag-stores';
import { TINY_MODEL_SETTINGS } from './tiny-model';

const fakeEmbedder = (modelId: string): Embedder => ({
  modelId,
  embed: (texts) => Promise.resolve(texts.map(() => Float32Array.from([1]))),
});

describe('embedding settings', () => {
  it('reads the stored settings and falls back to the default model for anything unreadable', async () => {
    const { settings } = await createRagStores();
    expect(await readEmbeddingSettings(settings)).toEqual(DEFAULT_EMBEDDING_SETTINGS);
    await settings.set(EMBEDDING_SETTINGS_KEY, TINY_MODEL_SETTINGS);
    expect(await readEmbeddingSettings(settings)).toEqual(TINY_MODEL_SETTINGS);
    // The settings store refuses such a value, so it can only come from an older version.
    const unreadable = { get: <T>() => Promise.resolve({ modelId: 42 } as T) };
    expect(await readEmbeddingSettings(unreadable)).toEqual(DEFAULT_EMBEDDING_SETTINGS);
  });

  it('keeps vectors of a quantized and a full model apart', () => {
    expect(embeddingModelKey({ modelId: 'Xenova/all-MiniLM-L6-v2', isQuantized: true })).not.toBe(
      embeddingModelKey({ modelId: 'Xenova/all-MiniLM-L6-v2', isQuantized: false }),
    );
  });
});

describe('createQueryEmbedderLoader', () => {
  it('loads the model once per settings and again when they change', async () => {
    const { settings } = await createRagStores();
    const loaded: string[] = [];
    const loader = createQueryEmbedderLoader(settings, {}, (current) => {
      loaded.push(current.modelId);
      return Promise.resolve(fakeEmbedder(current.modelId));
    });
    await loader();
    await loader();
    await settings.set(EMBEDDING_SETTINGS_KEY, TINY_MODEL_SETTINGS);
    expect((await loader())?.modelId).toBe('carrel/tiny-embedder');
    expect(loaded).toEqual([DEFAULT_EMBEDDING_SETTINGS.modelId, 'carrel/tiny-embedder']);
  });

  it('answers null when the model cannot load, so search falls back to keywords', async () => {
    const { settings } = await createRagStores();
    const loader = createQueryEmbedderLoader(settings, {}, () =>
      Promise.reject(new Error('offline')),
    );
    expect(await loader()).toBeNull();
  });

  it('tries a model that failed again once the retry delay has passed, not before', async () => {
    const { settings } = await createRagStores();
    let time = 1_000;
    let isOnline = false;
    let attempts = 0;
    const loader = createQueryEmbedderLoader(
      settings,
      {},
      (current) => {
        attempts++;
        return isOnline
          ? Promise.resolve(fakeEmbedder(current.modelId))
          : Promise.reject(new Error('offline'));
      },
      () => time,
    );
    expect(await loader()).toBeNull();
    isOnline = true;
    time += QUERY_EMBEDDER_RETRY_MS - 1;
    expect(await loader()).toBeNull();
    expect(attempts).toBe(1);
    time += 1;
    expect((await loader())?.modelId).toBe(DEFAULT_EMBEDDING_SETTINGS.modelId);
    time += QUERY_EMBEDDER_RETRY_MS * 10;
    expect((await loader())?.modelId).toBe(DEFAULT_EMBEDDING_SETTINGS.modelId);
    expect(attempts).toBe(2);
  });
});

describe('normalizeModelPaths', () => {
  it('drops the picked folder name so files land where transformers.js looks', () => {
    const blob = new Blob(['x']);
    const files = normalizeModelPaths([
      { path: 'all-MiniLM-L6-v2/config.json', blob },
      { path: 'all-MiniLM-L6-v2/onnx/model_quantized.onnx', blob },
      { path: 'README.md', blob },
    ]);
    expect(files.map((file) => file.path)).toEqual(['config.json', 'onnx/model_quantized.onnx']);
  });
});
