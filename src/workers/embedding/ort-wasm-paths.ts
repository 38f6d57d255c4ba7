/**
 * ONNX Runtime's WebAssembly build and its loader, bundled by Vite from node_modules and served
 * by the app itself (`?url` imports), so embeddings work offline and no CDN is contacted. One
 * build serves every case (SIMD, with threads when the page is cross-origin isolated): its
 * thread workers are module workers started from the loader's own same-origin URL, which the
 * app's CSP (`script-src 'self'`, `worker-src 'self'`) allows. Only the worker entries import this
 * file; Node tests use onnxruntime-node instead.
 */
import ortWasmLoader from 'onnxruntime-web/ort-wasm-simd-threaded.mjs?url';
import ortWasm from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';
import type { OrtWasmPaths } from './transformers-embedder';

export const ORT_WASM_PATHS: OrtWasmPaths = { mjs: ortWasmLoader, wasm: ortWasm };
