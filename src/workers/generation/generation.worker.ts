/// <reference lib="webworker" />
// First: zod without its eval probe, and CSP violations logged where tests can see them.
import '../../pwa/strict-csp';
import { ORT_WASM_PATHS } from '../embedding/ort-wasm-paths';
import { lazyHost, serve } from '../protocol';
import { GENERATION_CALLS, type GenerationHostApi, type GenerationWorkerApi } from './generation.api';

/**
 * The generation worker: the built-in model runs here, in a worker of its own, so neither the
 * UI nor the agent loop waits while it reads a prompt. The UI talks to it directly (downloads,
 * status); the agent worker through a MessagePort the UI connects (`connect`). transformers.js
 * is fetched on the first call, not when the app starts the worker.
 */
const api: GenerationWorkerApi = {
  ...lazyHost<GenerationHostApi>(GENERATION_CALLS, () =>
    import('./generation-host').then(({ createGenerationHost }) => createGenerationHost({ wasmPaths: ORT_WASM_PATHS })),
  ),
  connect(port) {
    serve(api, port);
  },
};

serve(api);
