/// <reference lib="webworker" />
import {
  createTransformersEmbedder,
  type OrtWasmPaths,
} from '../../../src/workers/embedding/transformers-embedder';
import { EMBEDDING_MODEL_ID, measureEmbedding } from '../lib/embedding-workload';

/**
 * Bench 6 in Chromium, in a dedicated worker like the app's embedding worker (ONNX Runtime
 * initialises once per worker, so each run gets a fresh one): the app's embedder
 * (transformers.js + ONNX Runtime WASM) over the bench model served as a self-hosted folder.
 */
export interface EmbeddingWorkerRequest {
  threads: number;
  /** The 8-bit file (onnx/model_quantized.onnx) rather than the float32 one (onnx/model.onnx). */
  isQuantized: boolean;
  modelBaseUrl: string;
  wasmPaths: OrtWasmPaths;
  texts: string[];
  passes: { maxPasses: number; budgetMs: number };
}

self.onmessage = async (event: MessageEvent<EmbeddingWorkerRequest>) => {
  const { threads, isQuantized, modelBaseUrl, wasmPaths, texts, passes } = event.data;
  try {
    const embedder = await createTransformersEmbedder(
      {
        modelId: EMBEDDING_MODEL_ID,
        isQuantized,
        source: { kind: 'self_hosted', baseUrl: modelBaseUrl },
        canDownload: false,
      },
      { wasmPaths, threads },
    );
    const run = await measureEmbedding(embedder, texts, passes);
    const wasmFiles = performance
      .getEntriesByType('resource')
      .map((entry) => entry.name.split('/').pop() ?? '')
      .filter((name) => name.startsWith('ort'));
    self.postMessage({
      ok: true,
      run,
      wasmFiles,
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
