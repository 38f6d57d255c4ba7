import type { FileId, ProjectId } from '../../core/model';
import type { ChunkStore, Embedder, FileStore } from '../../core/ports';
import type { WorkerError } from '../protocol';
import { embedFileChunks, embedProjectChunks } from './embed-chunks';
import type { EmbeddingProgressListener, EmbeddingWorkerApi, ModelLoadProgress } from './embedding.api';
import {
  embeddingModelKey,
  embeddingSettingsSchema,
  type EmbeddingSettings,
} from './embedding-models';
import { importModelFiles, isModelCached, listEmbeddingModelFiles } from './model-cache';

export interface EmbeddingHostDeps {
  files: FileStore;
  chunks: ChunkStore;
  /**
   * Loads a model; the worker passes createTransformersEmbedder with the app's WASM paths.
   * `signal` aborts the load's downloads once no job waits for it any more.
   */
  loadEmbedder(
    settings: EmbeddingSettings,
    onProgress: (progress: ModelLoadProgress) => void,
    signal: AbortSignal,
  ): Promise<Embedder>;
}

/**
 * The embedding worker's API over the stores, free of Comlink so tests drive it directly.
 * One model is kept loaded; asking for another replaces it.
 */
export function createEmbeddingHost(deps: EmbeddingHostDeps): EmbeddingWorkerApi {
  const jobs = new Map<string, AbortController>();
  /** The model loaded or loading, and how many jobs wait for its load. */
  let loaded: {
    key: string;
    embedder: Promise<Embedder>;
    controller: AbortController;
    waiting: number;
    isSettled: boolean;
  } | null = null;

  /**
   * The model for these settings, loaded once and shared by the jobs that need it. A job that
   * is cancelled stops waiting at once; when no job waits any more, the download stops too.
   */
  function getEmbedder(
    settings: EmbeddingSettings,
    onProgress: EmbeddingProgressListener,
    signal: AbortSignal,
  ): Promise<Embedder> {
    signal.throwIfAborted();
    const key = `${embeddingModelKey(settings)}|${JSON.stringify(settings.source)}|${settings.canDownload}`;
    if (loaded?.key !== key) {
      const controller = new AbortController();
      const embedder = deps.loadEmbedder(
        settings,
        (progress) => onProgress({ kind: 'model', progress }),
        controller.signal,
      );
      const entry = { key, embedder, controller, waiting: 0, isSettled: false };
      loaded = entry;
      embedder.then(
        () => (entry.isSettled = true),
        () => {
          entry.isSettled = true;
          if (loaded === entry) loaded = null;
        },
      );
    }
    const entry = loaded;
    if (entry.isSettled) return entry.embedder;
    entry.waiting += 1;
    return new Promise<Embedder>((resolve, reject) => {
      const stopWaiting = (): void => {
        entry.waiting -= 1;
        if (entry.waiting === 0 && !entry.isSettled) {
          entry.controller.abort(signal.reason);
          if (loaded === entry) loaded = null;
        }
        reject(signal.reason as Error);
      };
      signal.addEventListener('abort', stopWaiting, { once: true });
      entry.embedder.then(
        (embedder) => {
          signal.removeEventListener('abort', stopWaiting);
          entry.waiting -= 1;
          resolve(embedder);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', stopWaiting);
          entry.waiting -= 1;
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  async function runJob<T>(
    jobId: string,
    rawSettings: EmbeddingSettings,
    onProgress: EmbeddingProgressListener,
    work: (embedder: Embedder, signal: AbortSignal) => Promise<T>,
  ) {
    const parsed = embeddingSettingsSchema.safeParse(rawSettings);
    if (!parsed.success)
      return failure('invalid_settings', `Invalid embedding settings: ${parsed.error.message}`);
    const controller = new AbortController();
    jobs.set(jobId, controller);
    try {
      let embedder: Embedder;
      try {
        embedder = await getEmbedder(parsed.data, onProgress, controller.signal);
      } catch (error) {
        if (controller.signal.aborted)
          return failure('cancelled', 'The model download was cancelled. "Download now" starts it again.');
        if (isNetworkFailure(error))
          return failure('download_failed', describeDownloadFailure(parsed.data, error));
        return failure('model_unavailable', describeLoadError(parsed.data, error));
      }
      return { ok: true as const, value: await work(embedder, controller.signal) };
    } catch (error) {
      if (controller.signal.aborted)
        return failure('cancelled', 'Embedding was cancelled; what was embedded so far is kept.');
      return failure('embedding_failed', error instanceof Error ? error.message : String(error));
    } finally {
      jobs.delete(jobId);
    }
  }

  return {
    embedProject: (jobId, projectId, settings, onProgress) =>
      runJob(jobId, settings, onProgress, (embedder, signal) =>
        embedProjectChunks(
          projectId as ProjectId,
          embedder,
          deps,
          (progress) => onProgress({ kind: 'chunks', ...progress }),
          signal,
        ),
      ),
    embedFile: (jobId, fileId, settings, onProgress) =>
      runJob(jobId, settings, onProgress, (embedder, signal) =>
        embedFileChunks(
          fileId as FileId,
          embedder,
          deps.chunks,
          (progress) => onProgress({ kind: 'chunks', ...progress }),
          signal,
        ),
      ),
    embedQueries: (queries, settings) =>
      runJob(
        `queries-${queries.join('\u0000')}`,
        settings,
        () => undefined,
        (embedder, signal) => embedder.embed(queries, 'query', signal),
      ),
    prepareModel: (jobId, settings, onProgress) =>
      runJob(jobId, settings, onProgress, (embedder) =>
        Promise.resolve({ modelKey: embedder.modelId, runtime: embedder.runtime ?? null }),
      ),
    async importModelFolder(modelId, files, isQuantized) {
      try {
        return {
          ok: true,
          value: {
            fileCount: (await importModelFiles(modelId, files, listEmbeddingModelFiles(isQuantized)))
              .fileCount,
          },
        };
      } catch (error) {
        return failure('import_failed', error instanceof Error ? error.message : String(error));
      }
    },
    async countEmbedded(projectId, settings) {
      // Counted by index: a large project's chunks and vectors are never read for a number.
      return deps.chunks.countByProject(projectId as ProjectId, embeddingModelKey(settings));
    },
    async isModelAvailable(settings) {
      if (settings.canDownload && settings.source.kind === 'hub') return true;
      if (settings.source.kind === 'self_hosted') return true;
      return isModelCached(settings.modelId, settings.isQuantized);
    },
    cancel(jobId) {
      jobs.get(jobId)?.abort();
      return Promise.resolve();
    },
  };
}

function failure(code: string, message: string): { ok: false; error: WorkerError } {
  return { ok: false, error: { code, message } };
}

/**
 * A fetch that never got an answer: the browsers' words for it (Chromium "Failed to fetch",
 * Firefox "NetworkError when attempting to fetch resource", Safari "Load failed"), and Node's.
 */
const NETWORK_FAILURE_PATTERN = /failed to fetch|networkerror|load failed|fetch failed/i;

function isNetworkFailure(error: unknown): boolean {
  return NETWORK_FAILURE_PATTERN.test(error instanceof Error ? error.message : String(error));
}

/** Says what to do: retry, or bring the files in another way (Settings › Embeddings). */
function describeDownloadFailure(settings: EmbeddingSettings, error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return `The embedding model ${settings.modelId} could not be downloaded: the network could not be reached (${reason}). Retry when you are online, or import the model folder from disk in Settings › Embeddings.`;
}

function describeLoadError(settings: EmbeddingSettings, error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  const hint = settings.canDownload
    ? ''
    : ' Downloads are switched off: import the model from a folder, use a self-hosted path, or allow downloads.';
  return `The embedding model ${settings.modelId} could not be loaded (${reason}).${hint}`;
}
