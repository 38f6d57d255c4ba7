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
): Promise<Embedder> =>
  (await import('./transformers-embedder')).createTransformersEmbedder(settings, environment);

/** A model that could not load (offline, say) is tried again after this long, not at every search. */
export const QUERY_EMBEDDER_RETRY_MS = 30_000;

/**
 * For the agent worker's project search: loads the user's embedding model on first use and
 * keeps it while the settings stay the same. A model that cannot load yields null, so search
 * falls back to BM25 instead of failing; the load is tried again when the settings change or,
 * once `QUERY_EMBEDDER_RETRY_MS` have passed, on the next search (back online, the search is
 * hybrid again without a reload).
 */
export function createQueryEmbedderLoader(
  settings: SettingsStore,
  environment: TransformersEnvironment = {},
  load: (
    settings: EmbeddingSettings,
    environment: TransformersEnvironment,
  ) => Promise<Embedder> = loadTransformersEmbedder,
  now: () => number = Date.now,
): () => Promise<Embedder | null> {
  let cached: { key: string; embedder: Promise<Embedder | null>; failedAt: number | null } | null =
    null;
  return async () => {
    const current = await readEmbeddingSettings(settings);
    const key = `${embeddingModelKey(current)}|${JSON.stringify(current.source)}|${current.canDownload}`;
    const isRetryDue =
      cached?.failedAt != null && now() - cached.failedAt >= QUERY_EMBEDDER_RETRY_MS;
    if (cached?.key !== key || isRetryDue) {
      const entry: NonNullable<typeof cached> = {
        key,
        embedder: Promise.resolve(null),
        failedAt: null,
      };
      entry.embedder = load(current, environment).catch(() => {
        entry.failedAt = now();
        return null;
      });
      cached = entry;
    }
    return cached.embedder;
  };
}
