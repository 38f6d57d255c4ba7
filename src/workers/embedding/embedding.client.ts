import { proxy } from 'comlink';
import { connectRenewing, jobStarter, type WorkerJob } from '../protocol';
import type {
  EmbeddingProgressListener,
  EmbeddingSettings,
  EmbeddingWorkerApi,
  WorkerResult,
} from './embedding.api';

export type {
  EmbeddingProgress,
  EmbeddingProgressListener,
  EmbeddingSettings,
  ModelFile,
  ModelLoadProgress,
} from './embedding.api';
export {
  DEFAULT_EMBEDDING_MODEL_ID,
  DEFAULT_EMBEDDING_SETTINGS,
  EMBEDDING_MODELS,
  EMBEDDING_SETTINGS_KEY,
  embeddingModelKey,
  embeddingSettingsSchema,
  readEmbeddingSettings,
} from './embedding-models';

/** A running job: its answer, and a cancel that keeps what was saved so far. */
export type EmbeddingJob<T> = WorkerJob<WorkerResult<T>>;

/**
 * The UI side of the embedding worker: long jobs come back as cancellable handles; the
 * one-shot calls pass straight through the contract.
 */
export interface EmbeddingClient extends Pick<
  EmbeddingWorkerApi,
  'embedQueries' | 'importModelFolder' | 'countEmbedded' | 'isModelAvailable'
> {
  embedProject(
    projectId: string,
    settings: EmbeddingSettings,
    onProgress: EmbeddingProgressListener,
  ): EmbeddingJob<{ embedded: number; total: number }>;
  embedFile(
    fileId: string,
    settings: EmbeddingSettings,
    onProgress: EmbeddingProgressListener,
  ): EmbeddingJob<{ embedded: number; total: number }>;
  prepareModel(
    settings: EmbeddingSettings,
    onProgress: EmbeddingProgressListener,
  ): EmbeddingJob<{ modelKey: string; runtime: string | null }>;
  dispose(): void;
}

export function createEmbeddingClient(): EmbeddingClient {
  const worker = connectRenewing<EmbeddingWorkerApi>(
    () => new Worker(new URL('./embedding.worker.ts', import.meta.url), { type: 'module', name: 'embedding' }),
  );
  const { call } = worker;
  const startJob = jobStarter('embedding', (jobId) => call((api) => api.cancel(jobId)));
  return {
    embedProject: (projectId, settings, onProgress) =>
      startJob((jobId) => call((api) => api.embedProject(jobId, projectId, settings, proxy(onProgress)))),
    embedFile: (fileId, settings, onProgress) =>
      startJob((jobId) => call((api) => api.embedFile(jobId, fileId, settings, proxy(onProgress)))),
    prepareModel: (settings, onProgress) =>
      startJob((jobId) => call((api) => api.prepareModel(jobId, settings, proxy(onProgress)))),
    embedQueries: (queries, settings) => call((api) => api.embedQueries(queries, settings)),
    importModelFolder: (modelId, files, isQuantized) =>
      call((api) => api.importModelFolder(modelId, files, isQuantized)),
    countEmbedded: (projectId, settings) => call((api) => api.countEmbedded(projectId, settings)),
    isModelAvailable: (settings) => call((api) => api.isModelAvailable(settings)),
    dispose: () => worker.dispose(),
  };
}
