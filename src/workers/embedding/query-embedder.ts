import type { Embedder, SettingsStore } from '../../core/ports';
import {
  embeddingModelKey,
  readEmbeddingSettings,
  type EmbeddingSettings,
} from './embedding-models';
import type { TransformersEnvironment } from './transformers-embedder';

/** transformers.js and ONNX Runtime are large: the agent worker loads them only on first search. */
const loadTransformersEmbedder = async (
  settings: EmbeddingSettings,
  environment: TransformersEnvironment,
): Promise<Embedder> => (await import('./transformers-embedder')).createTransformersEmbedder(settings, environment);

/**
 * For the agent worker's project search: loads the user's embedding model on first use and
 * keeps it while the settings stay the same. A model that cannot load yields null, so search
 * falls back to BM25 instead of failing; it is retried only when the settings change.
 */
export function createQueryEmbedderLoader(
  settings: SettingsStore,
  environment: TransformersEnvironment = {},
  load: (
    settings: EmbeddingSettings,
    environment: TransformersEnvironment,
  ) => Promise<Embedder> = loadTransformersEmbedder,
): () => Promise<Embedder | null> {
  let cached: { key: string; embedder: Promise<Embedder | null> } | null = null;
  return async () => {
    const current = await readEmbeddingSettings(settings);
    const key = `${embeddingModelKey(current)}|${JSON.stringify(current.source)}|${current.canDownload}`;
    if (cached?.key !== key)
      cached = { key, embedder: load(current, environment).catch(() => null) };
    return cached.embedder;
  };
}
