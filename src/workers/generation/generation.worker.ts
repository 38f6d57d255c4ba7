/// <reference lib="webworker" />
// First: zod without its eval probe, and CSP violations logged where tests can see them.
import '../../boot/strict-csp';
import { ORT_WASM_PATHS } from '../embedding/ort-wasm-paths';
import { lazyHost, serve } from '../protocol';
import { GENERATION_CALLS, type GenerationHostApi, type GenerationWorkerApi } from './generation.api';
import { chooseGenerationDevice } from './generation-device';
import { findPartialDownload } from './model-download';

/**
 * The generation worker: the built-in model runs here, in a worker of its own, so neither the
 * UI nor the agent loop waits while it reads a prompt. The UI talks to it directly (downloads,
 * status); the agent worker through a MessagePort the UI connects (`connect`). transformers.js
 * is fetched on the first call, not when the app starts the worker.
 */
/**
 * Builds the host on the first call. Where WebGPU has an adapter, ONNX Runtime's WebGPU build
 * (fetched only then) is put in place of the WebAssembly one before transformers.js loads.
 */
async function buildHost(): Promise<GenerationHostApi> {
  const device = await chooseGenerationDevice();
  let wasmPaths = ORT_WASM_PATHS;
  if (device === 'webgpu') {
    const runtime = await import('./ort-webgpu-runtime');
    await runtime.installWebGpuRuntime();
    wasmPaths = runtime.ORT_WEBGPU_WASM_PATHS;
  }
  const { createGenerationHost } = await import('./generation-host');
  return createGenerationHost({ wasmPaths, device });
}

const api: GenerationWorkerApi = {
  ...lazyHost<GenerationHostApi>(GENERATION_CALLS, buildHost),
  // Read from the cache alone: a first screen asking this does not load transformers.js.
  findPartialDownload: () => findPartialDownload(),
  connect(port) {
    serve(api, port);
  },
};

serve(api);
