/// <reference lib="webworker" />
// First: zod without its eval probe, and CSP violations logged where tests can see them.
import '../../boot/strict-csp';
import { createStores, openCarrelDb } from '../../storage';
import { lazyHost, serve, WORKER_CLOCK, WORKER_IDS } from '../protocol';
import { EMBEDDING_CALLS, type EmbeddingWorkerApi } from './embedding.api';
import { createEmbeddingHost } from './embedding-host';
import { ORT_WASM_PATHS } from './ort-wasm-paths';
import { createTransformersEmbedder } from './transformers-embedder';

/** The embedding worker: transformers.js and ONNX Runtime run here, off the UI thread. */
serve(
  lazyHost<EmbeddingWorkerApi>(EMBEDDING_CALLS, async () => {
    const { files, chunks } = createStores(await openCarrelDb(), WORKER_CLOCK, WORKER_IDS);
    return createEmbeddingHost({
      files,
      chunks,
      loadEmbedder: (settings, onProgress, signal) => createTransformersEmbedder(settings, { wasmPaths: ORT_WASM_PATHS }, onProgress, signal),
    });
  }),
);
