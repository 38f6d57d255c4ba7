/// <reference lib="webworker" />
// First: zod without its eval probe, and CSP violations logged where tests can see them.
import '../../pwa/strict-csp';
import { expose } from 'comlink';
import { createStores, openCarrelDb } from '../../storage';
import type { EmbeddingWorkerApi } from './embedding.api';
import { createEmbeddingHost } from './embedding-host';
import { ORT_WASM_PATHS } from './ort-wasm-paths';
import { createTransformersEmbedder } from './transformers-embedder';

/**
 * The embedding worker: transformers.js and ONNX Runtime run here, off the UI thread. Stores
 * open lazily on the first call.
 */
let hostPromise: Promise<EmbeddingWorkerApi> | undefined;

function getHost(): Promise<EmbeddingWorkerApi> {
  hostPromise ??= (async () => {
    const db = await openCarrelDb();
    const { files, chunks } = createStores(
      db,
      { now: () => Date.now(), timeZone: () => Intl.DateTimeFormat().resolvedOptions().timeZone },
      { newId: () => crypto.randomUUID() },
    );
    return createEmbeddingHost({
      files,
      chunks,
      loadEmbedder: (settings, onProgress) =>
        createTransformersEmbedder(settings, { wasmPaths: ORT_WASM_PATHS }, onProgress),
    });
  })();
  hostPromise.catch(() => {
    hostPromise = undefined;
  });
  return hostPromise;
}

const api: EmbeddingWorkerApi = {
  embedProject: async (...args) => (await getHost()).embedProject(...args),
  embedFile: async (...args) => (await getHost()).embedFile(...args),
  embedQueries: async (...args) => (await getHost()).embedQueries(...args),
  prepareModel: async (...args) => (await getHost()).prepareModel(...args),
  importModelFolder: async (...args) => (await getHost()).importModelFolder(...args),
  countEmbedded: async (...args) => (await getHost()).countEmbedded(...args),
  isModelAvailable: async (...args) => (await getHost()).isModelAvailable(...args),
  cancel: async (jobId) => (await getHost()).cancel(jobId),
};

expose(api);
