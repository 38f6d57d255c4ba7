/**
 * Where the built-in model runs: WebGPU when the browser has it and hands out an adapter, else
 * ONNX Runtime's WebAssembly build on the CPU. Asked once per worker, before transformers.js
 * loads, so the WebGPU-capable runtime (a larger WebAssembly file) is fetched only where it can run.
 */
export type GenerationDevice = 'webgpu' | 'wasm';

/** The part of `navigator.gpu` the choice reads (a fake in unit tests). */
export interface GpuLike {
  requestAdapter(): Promise<unknown>;
}

/** `navigator.gpu` where this context has one (workers too), else undefined. */
export function findGpu(): GpuLike | undefined {
  const gpu = (globalThis.navigator as { gpu?: unknown } | undefined)?.gpu;
  return typeof gpu === 'object' && gpu !== null && typeof (gpu as GpuLike).requestAdapter === 'function' ? (gpu as GpuLike) : undefined;
}

/**
 * WebGPU only with an adapter: `navigator.gpu` exists in browsers whose GPU is blocklisted or
 * absent (headless, remote desktops), where `requestAdapter()` answers null or throws.
 */
export async function chooseGenerationDevice(gpu: GpuLike | undefined = findGpu()): Promise<GenerationDevice> {
  if (gpu === undefined) return 'wasm';
  try {
    return (await gpu.requestAdapter()) ? 'webgpu' : 'wasm';
  } catch {
    return 'wasm';
  }
}

/** What Settings says about the runtime: "WebGPU", or "WebAssembly, 2 threads". */
export function describeGenerationRuntime(device: GenerationDevice, wasmThreads: number): string {
  return device === 'webgpu' ? 'WebGPU' : `WebAssembly, ${wasmThreads} thread${wasmThreads === 1 ? '' : 's'}`;
}
