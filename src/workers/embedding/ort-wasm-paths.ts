/**
 * The ONNX Runtime WASM binaries, bundled by Vite from node_modules and served by the app
 * itself (`?url` imports), so embeddings work offline and no CDN is contacted. Only the
 * single-threaded builds are shipped, so chooseWasmThreadCount (transformers-embedder.ts) picks
 * one thread even on a cross-origin isolated page: ONNX Runtime 1.14's thread workers
 * importScripts() their runtime from a `blob:` URL, which the app's `script-src 'self'` blocks,
 * and the runtime would then never start. Only the worker entries import this file; Node tests
 * use onnxruntime-node instead.
 */
import ortWasmSimd from 'onnxruntime-web/dist/ort-wasm-simd.wasm?url';
import ortWasm from 'onnxruntime-web/dist/ort-wasm.wasm?url';

export const ORT_WASM_PATHS: Record<string, string> = {
  'ort-wasm.wasm': ortWasm,
  'ort-wasm-simd.wasm': ortWasmSimd,
};
