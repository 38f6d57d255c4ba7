import { env, pipeline } from '@xenova/transformers';
import type { Embedder, EmbeddingPurpose } from '../../core/ports';
import {
  describeEmbeddingModel,
  embeddingModelKey,
  type EmbeddingSettings,
} from './embedding-models';
import { isModelCached } from './model-cache';

/**
 * transformers.js refuses to run with both local and remote models switched off, even when
 * the files are cached. Offline, it is given this local folder, which is never reached because
 * the cache is checked first and a missing model is reported before loading.
 */
const OFFLINE_LOCAL_PATH = '/__carrel-offline-models__/';

/** Download progress of one model file, as transformers.js reports it. */
export interface ModelLoadProgress {
  file: string;
  status: 'initiate' | 'download' | 'progress' | 'done' | 'ready';
  /** 0–100 while downloading. */
  percent?: number;
  loadedBytes?: number;
  totalBytes?: number;
}

export interface TransformersEnvironment {
  /**
   * URLs of the ONNX Runtime WASM files served by the app (see ort-wasm-paths.ts), so nothing
   * is fetched from a CDN. Node (tests) uses onnxruntime-node and needs none.
   */
  wasmPaths?: Record<string, string>;
  /** Pins the WASM thread count (the embeddings bench); by default chooseWasmThreadCount decides. */
  wasmThreads?: number;
  /** Folder of local models for tests in Node (`env.localModelPath`). */
  localModelPath?: string;
}

/** More threads than this gain little for a small model and take cores from the UI. */
export const MAX_WASM_THREADS = 4;
/** The threaded build threads need: SIMD only (every browser with WASM threads but Safari < 16.4). */
export const THREADED_WASM_FILE = 'ort-wasm-simd-threaded.wasm';

export interface WasmThreadContext {
  /** `crossOriginIsolated`: SharedArrayBuffer, which WASM threads need, exists only then. */
  isCrossOriginIsolated: boolean;
  hardwareConcurrency: number;
  /** The threaded SIMD build is among the WASM paths and SIMD works. */
  canUseThreadedBuild: boolean;
}

/** One thread unless the page is cross-origin isolated: then one per core, up to four. */
export function chooseWasmThreadCount(context: WasmThreadContext): number {
  if (!context.isCrossOriginIsolated || !context.canUseThreadedBuild) return 1;
  const cores = Number.isFinite(context.hardwareConcurrency)
    ? Math.floor(context.hardwareConcurrency)
    : 1;
  return Math.max(1, Math.min(MAX_WASM_THREADS, cores));
}

const progressStatuses = new Set(['initiate', 'download', 'progress', 'done', 'ready']);

/** Sets transformers.js's global env for these settings; the worker holds one model at a time. */
export function configureTransformers(
  settings: EmbeddingSettings,
  environment: TransformersEnvironment = {},
  wasmThreads = 1,
): void {
  env.allowRemoteModels = settings.canDownload && settings.source.kind === 'hub';
  if (settings.source.kind === 'self_hosted') {
    env.allowLocalModels = true;
    env.localModelPath = settings.source.baseUrl.endsWith('/')
      ? settings.source.baseUrl
      : `${settings.source.baseUrl}/`;
  } else if (environment.localModelPath !== undefined) {
    env.allowLocalModels = true;
    env.localModelPath = environment.localModelPath;
  } else {
    // No probing of /models/ on our own origin: it would answer with the app's index.html.
    env.allowLocalModels = false;
  }
  // Imported models live in the browser cache under their hub URL, where transformers.js looks.
  env.useBrowserCache = typeof caches !== 'undefined';
  if (environment.wasmPaths !== undefined) {
    env.backends.onnx.wasm.wasmPaths = environment.wasmPaths;
    // ONNX Runtime reads this once, when its first session starts in this worker.
    env.backends.onnx.wasm.numThreads = wasmThreads;
  }
}

/**
 * The smallest module with a SIMD instruction (the probe ONNX Runtime itself uses): without SIMD,
 * ONNX Runtime would ask for the plain threaded build, which is never among the WASM paths.
 */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 30, 1, 28, 0, 65, 0, 253, 15, 253,
  12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 253, 186, 1, 26, 11,
]);

function canRunSimd(): boolean {
  if (env.backends.onnx.wasm.simd === false) return false;
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

/** The pinned count, else one per core (up to four) when isolated and the threaded build is given. */
function resolveWasmThreads(environment: TransformersEnvironment): number {
  if (environment.wasmThreads !== undefined) return environment.wasmThreads;
  return chooseWasmThreadCount({
    isCrossOriginIsolated: globalThis.crossOriginIsolated === true,
    hardwareConcurrency: globalThis.navigator?.hardwareConcurrency ?? 1,
    canUseThreadedBuild: environment.wasmPaths?.[THREADED_WASM_FILE] !== undefined && canRunSimd(),
  });
}

function toProgress(raw: unknown): ModelLoadProgress | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const data = raw as Record<string, unknown>;
  const status = data.status;
  if (typeof status !== 'string' || !progressStatuses.has(status)) return null;
  return {
    file: typeof data.file === 'string' ? data.file : '',
    status: status as ModelLoadProgress['status'],
    ...(typeof data.progress === 'number' ? { percent: data.progress } : {}),
    ...(typeof data.loaded === 'number' ? { loadedBytes: data.loaded } : {}),
    ...(typeof data.total === 'number' ? { totalBytes: data.total } : {}),
  };
}

/** Loads the model (reporting download progress) and returns an Embedder over it. */
export async function createTransformersEmbedder(
  settings: EmbeddingSettings,
  environment: TransformersEnvironment = {},
  onProgress: (progress: ModelLoadProgress) => void = () => undefined,
): Promise<Embedder> {
  configureTransformers(settings, environment, resolveWasmThreads(environment));
  if (!env.allowRemoteModels && !env.allowLocalModels) {
    if (!(await isModelCached(settings.modelId, settings.isQuantized))) {
      throw new Error(`its files are not stored in this browser`);
    }
    env.allowLocalModels = true;
    env.localModelPath = OFFLINE_LOCAL_PATH;
  }
  const extractor = await pipeline('feature-extraction', settings.modelId, {
    quantized: settings.isQuantized,
    progress_callback: (raw: unknown) => {
      const progress = toProgress(raw);
      if (progress !== null) onProgress(progress);
    },
  });
  const info = describeEmbeddingModel(settings.modelId);
  return {
    modelId: embeddingModelKey(settings),
    async embed(texts: readonly string[], purpose: EmbeddingPurpose, signal: AbortSignal) {
      if (texts.length === 0) return [];
      signal.throwIfAborted();
      const prefix = purpose === 'query' ? info.queryPrefix : info.passagePrefix;
      const output = await extractor(
        texts.map((text) => prefix + text),
        { pooling: 'mean', normalize: true },
      );
      signal.throwIfAborted();
      const dimensions = output.dims[output.dims.length - 1] ?? 0;
      const data = output.data as Float32Array;
      return texts.map((_, row) => data.slice(row * dimensions, (row + 1) * dimensions));
    },
  };
}
