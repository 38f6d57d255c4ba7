/// <reference lib="webworker" />
import type { OrtWasmPaths } from '../../../src/workers/embedding/transformers-embedder';
import { createGenerationHost } from '../../../src/workers/generation/generation-host';
import { measureGeneration, type GenerationPlan } from '../lib/generation-workload';

/**
 * Bench 9 in Chromium, in a dedicated worker like the app's generation worker, running what that
 * worker runs (generation.worker.ts only exposes this host over Comlink): the app's generation
 * host, transformers.js and ONNX Runtime WASM with the app's thread choice, over the bench model
 * served as a self-hosted folder.
 */
export interface GenerationWorkerRequest {
  modelBaseUrl: string;
  wasmPaths: OrtWasmPaths;
  plan: GenerationPlan;
}

self.onmessage = async (event: MessageEvent<GenerationWorkerRequest>) => {
  const { modelBaseUrl, wasmPaths, plan } = event.data;
  try {
    const host = createGenerationHost({ wasmPaths, localModelPath: modelBaseUrl });
    const run = await measureGeneration(
      host.generate,
      plan,
      new URL(modelBaseUrl, location.href).href,
    );
    const status = await host.status();
    self.postMessage({
      ok: true,
      run,
      runtime: status.runtime,
      isCrossOriginIsolated: self.crossOriginIsolated,
      hardwareConcurrency: navigator.hardwareConcurrency,
    });
  } catch (error) {
    self.postMessage({
      ok: false,
      message: error instanceof Error ? error.message : String(error),
    });
  }
};
