/// <reference lib="webworker" />
// First: zod without its eval probe, and CSP violations logged where tests can see them.
import '../../pwa/strict-csp';
import { expose } from 'comlink';
import { ORT_WASM_PATHS } from '../embedding/ort-wasm-paths';
import type { GenerationWorkerApi } from './generation.api';
import { chooseGenerationDevice } from './generation-device';
import { findPartialDownload } from './model-download';

/**
 * The generation worker: the built-in model runs here, in a worker of its own, so neither the
 * UI nor the agent loop waits while it reads a prompt. The UI talks to it directly (downloads,
 * status); the agent worker through a MessagePort the UI connects (`connect`).
 */
type Host = Omit<GenerationWorkerApi, 'connect'>;
let hostPromise: Promise<Host> | undefined;

/**
 * transformers.js is fetched on the first call, not when the app starts the worker; before it,
 * where WebGPU has an adapter, ONNX Runtime's WebGPU build (fetched only then) is put in its place.
 */
function getHost(): Promise<Host> {
  hostPromise ??= (async () => {
    const device = await chooseGenerationDevice();
    let wasmPaths = ORT_WASM_PATHS;
    if (device === 'webgpu') {
      const runtime = await import('./ort-webgpu-runtime');
      await runtime.installWebGpuRuntime();
      wasmPaths = runtime.ORT_WEBGPU_WASM_PATHS;
    }
    const { createGenerationHost } = await import('./generation-host');
    return createGenerationHost({ wasmPaths, device });
  })();
  return hostPromise;
}

const api: GenerationWorkerApi = {
  download: async (...args) => (await getHost()).download(...args),
  cancel: async (...args) => (await getHost()).cancel(...args),
  importModel: async (...args) => (await getHost()).importModel(...args),
  isDownloaded: async (...args) => (await getHost()).isDownloaded(...args),
  // Read from the cache alone: a first screen asking this does not load transformers.js.
  findPartialDownload: () => findPartialDownload(),
  deleteModel: async (...args) => (await getHost()).deleteModel(...args),
  generate: async (...args) => (await getHost()).generate(...args),
  status: async () => (await getHost()).status(),
  connect(port) {
    expose(api, port);
  },
};

expose(api);
