/**
 * The ONNX Runtime WASM binaries, bundled by Vite from node_modules and served by the app
 * itself (`?url` imports), so embeddings work offline and no CDN is contacted. Only the
 * single-threaded builds are shipped: configureTransformers sets `numThreads = 1` whenever these
 * paths are used, which keeps ~19 MB of threaded builds out of the precache. Only the worker
 * entries import this file; Node tests use onnxruntime-node instead.
 */
import ortWasmSimd from 'onnxruntime-web/dist/ort-wasm-simd.wasm?url';
import ortWasm from 'onnxruntime-web/dist/ort-wasm.wasm?url';

export const ORT_WASM_PATHS: Record<string, string> = {
  'ort-wasm.wasm': ortWasm,
  'ort-wasm-simd.wasm': ortWasmSimd,
};
