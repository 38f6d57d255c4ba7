import { env, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import type { Embedder, EmbeddingPurpose } from '../../core/ports';
import {
  describeEmbeddingModel,
  embeddingModelKey,
  type EmbeddingSettings,
} from './embedding-models';
import { HUB_HOST, HUB_PATH_TEMPLATE, isModelCached } from './model-cache';
import type { ModelLoadProgress } from './embedding.api';

/**
 * transformers.js refuses to run with both local and remote models switched off, even when
 * the files are cached. Offline, it is given this local folder, which is never reached because
 * the cache is checked first and a missing model is reported before loading.
 */
const OFFLINE_LOCAL_PATH = '/__carrel-offline-models__/';


/** The ONNX Runtime files the app serves itself: the threaded SIMD build and its loader. */
export interface OrtWasmPaths {
  /** `ort-wasm-simd-threaded.mjs`: the Emscripten loader, which also starts each WASM thread. */
  mjs: string;
  /** `ort-wasm-simd-threaded.wasm`. */
  wasm: string;
}

export interface TransformersEnvironment {
  /**
   * URLs of the ONNX Runtime files served by the app (see ort-wasm-paths.ts), so nothing is
   * fetched from a CDN. Node (tests) uses onnxruntime-node and needs none.
   */
  wasmPaths?: OrtWasmPaths;
  /** Pins the thread count (the embeddings bench); by default chooseWasmThreadCount decides. */
  threads?: number;
  /** Folder of local models for tests in Node (`env.localModelPath`). */
  localModelPath?: string;
  /**
   * Node only: where files loaded over HTTP are written (transformers.js hands ONNX Runtime a
   * path there). Without it, Node loads only local folders.
   */
  fileCacheDir?: string;
}

/** More threads than this gain little for a small model and take cores from the UI. */
export const MAX_WASM_THREADS = 4;

export interface WasmThreadContext {
  /** `crossOriginIsolated`: SharedArrayBuffer, which WASM threads need, exists only then. */
  isCrossOriginIsolated: boolean;
  hardwareConcurrency: number;
}

/** One thread unless the page is cross-origin isolated: then one per core, up to four. */
export function chooseWasmThreadCount(context: WasmThreadContext): number {
  if (!context.isCrossOriginIsolated) return 1;
  const cores = Number.isFinite(context.hardwareConcurrency)
    ? Math.floor(context.hardwareConcurrency)
    : 1;
  return Math.max(1, Math.min(MAX_WASM_THREADS, cores));
}

function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

const progressStatuses = new Set(['initiate', 'download', 'progress', 'done', 'ready']);

/** Sets transformers.js's global env for these settings; the worker holds one model at a time. */
function configureTransformers(
  settings: EmbeddingSettings,
  environment: TransformersEnvironment,
  wasmThreads: number,
): void {
  if (settings.source.kind === 'self_hosted') {
    // The person's own folder is a model host laid out like the hub (`<model id>/config.json`,
    // `<model id>/onnx/…`), read as the hub is. Made absolute: transformers.js lists a model's
    // files (the tokenizer's among them) with `Range` probes, which it sends only to URLs.
    env.remoteHost = withTrailingSlash(
      new URL(settings.source.baseUrl, globalThis.location?.href).href,
    );
    env.remotePathTemplate = '{model}/';
    env.allowRemoteModels = true;
  } else {
    env.remoteHost = HUB_HOST;
    env.remotePathTemplate = HUB_PATH_TEMPLATE;
    env.allowRemoteModels = settings.canDownload;
  }
  if (settings.source.kind === 'hub' && environment.localModelPath !== undefined) {
    env.allowLocalModels = true;
    env.localModelPath = environment.localModelPath;
  } else {
    // No probing of /models/ on our own origin: it would answer with the app's index.html.
    env.allowLocalModels = false;
  }
  // Downloaded files (hub or self-hosted) are kept in the browser cache under their address, for
  // offline use; imported models are written there under their hub URL, where transformers.js looks.
  env.useBrowserCache = typeof caches !== 'undefined';
  // Node (tests, bench) downloads into a folder only when given one, never under node_modules.
  env.useFSCache = environment.fileCacheDir !== undefined;
  if (environment.fileCacheDir !== undefined) env.cacheDir = environment.fileCacheDir;
  // No copy of ONNX Runtime's own files in that cache: the service worker precaches them, and
  // transformers.js would import the loader back from a blob: URL, which script-src 'self' forbids.
  env.useWasmCache = false;
  const wasm = env.backends.onnx.wasm;
  if (environment.wasmPaths !== undefined && wasm !== undefined) {
    wasm.wasmPaths = { ...environment.wasmPaths };
    // ONNX Runtime reads this once, when its first session starts in this worker. Its threads
    // are module workers started from the same-origin loader (`mjs`), which the CSP allows.
    wasm.numThreads = wasmThreads;
  }
}

export function describeWasmRuntime(threads: number): string {
  return `WebAssembly, ${threads} thread${threads === 1 ? '' : 's'}`;
}

/** The pinned count, else one per core (up to four) when the page is cross-origin isolated. */
function resolveWasmThreads(environment: TransformersEnvironment): number {
  if (environment.threads !== undefined) return environment.threads;
  return chooseWasmThreadCount({
    isCrossOriginIsolated: globalThis.crossOriginIsolated === true,
    hardwareConcurrency: globalThis.navigator?.hardwareConcurrency ?? 1,
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
  signal?: AbortSignal,
): Promise<Embedder> {
  const threads = resolveWasmThreads(environment);
  configureTransformers(settings, environment, threads);
  // Every file of this load is fetched under its signal, so a cancelled download stops.
  env.fetch = (input: string | URL, init?: RequestInit) => fetch(input, { ...init, signal });
  if (!env.allowRemoteModels && !env.allowLocalModels) {
    if (!(await isModelCached(settings.modelId, settings.isQuantized))) {
      throw new Error(`its files are not stored in this browser`);
    }
    env.allowLocalModels = true;
    env.localModelPath = OFFLINE_LOCAL_PATH;
  }
  const isBrowser = environment.wasmPaths !== undefined;
  const extractor: FeatureExtractionPipeline = await pipeline(
    'feature-extraction',
    settings.modelId,
    {
      // model_quantized.onnx (8-bit) or model.onnx, the file names the hub's ONNX exports use.
      dtype: settings.isQuantized ? 'q8' : 'fp32',
      // The browser build bundles only ONNX Runtime's WASM backend (vite.config.ts); Node uses
      // onnxruntime-node, with its intra-op threads pinned like the browser's when asked.
      ...(isBrowser
        ? { device: 'wasm' as const }
        : environment.threads !== undefined
          ? { session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 } }
          : {}),
      progress_callback: (raw: unknown) => {
        const progress = toProgress(raw);
        if (progress !== null) onProgress(progress);
      },
    },
  );
  const info = describeEmbeddingModel(settings.modelId);
  return {
    modelId: embeddingModelKey(settings),
    // ONNX Runtime lowers the count to 1 when it cannot start threads, so this is what runs.
    runtime: isBrowser
      ? describeWasmRuntime(env.backends.onnx.wasm?.numThreads ?? 1)
      : 'onnxruntime-node (CPU)',
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
