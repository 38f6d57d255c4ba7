/**
 * ONNX Runtime's WebGPU build, loaded only when the generation worker chose WebGPU: its
 * WebAssembly file (27 MB, kernels for both WebGPU and the CPU) is served by the app like the
 * WASM-only build (src/workers/embedding/ort-wasm-paths.ts) but left out of the offline precache,
 * so browsers without WebGPU never download it. transformers.js uses an ONNX Runtime placed at
 * `globalThis[Symbol.for('onnxruntime')]` instead of the WASM-only build the app bundles.
 */
import ortWebGpuLoader from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import ortWebGpuWasm from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import type { OrtWasmPaths } from '../embedding/transformers-embedder';

export const ORT_WEBGPU_WASM_PATHS: OrtWasmPaths = { mjs: ortWebGpuLoader, wasm: ortWebGpuWasm };

/** Installs the WebGPU build for transformers.js; call before transformers.js is imported. */
export async function installWebGpuRuntime(): Promise<void> {
  // `carrel-ort-webgpu` is aliased to onnxruntime-web/webgpu (vite.config.ts), which the app's
  // own alias otherwise points at the WASM-only build.
  const ort: unknown = await import('carrel-ort-webgpu');
  (globalThis as Record<symbol, unknown>)[Symbol.for('onnxruntime')] = ort;
}
