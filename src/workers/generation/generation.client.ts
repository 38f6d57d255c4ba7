import { proxy, transfer } from 'comlink';
import { connect, jobStarter, type WorkerJob } from '../protocol';
import type { DownloadProgressListener, GenerationWorkerApi, LocalModelRef, ModelFile, WorkerResult } from './generation.api';

export type { DownloadProgress, GenerationStatus, LocalModelRef, ModelFile, PartialDownload } from './generation.api';

export type DownloadJob = WorkerJob<WorkerResult<{ bytes: number }>>;

/** The UI side of the generation worker. */
export interface GenerationClient {
  download(model: LocalModelRef, onProgress: DownloadProgressListener): DownloadJob;
  isDownloaded(model: LocalModelRef): Promise<boolean>;
  importModel(modelId: string, files: ModelFile[]): Promise<WorkerResult<{ bytes: number }>>;
  findPartialDownload: GenerationWorkerApi['findPartialDownload'];
  deleteModel(model: LocalModelRef): Promise<void>;
  status: GenerationWorkerApi['status'];
  /** A new port on the worker, for the agent worker (transferred there). */
  openPort(): MessagePort;
  dispose(): void;
}

export function createGenerationClient(): GenerationClient {
  const { api, dispose } = connect<GenerationWorkerApi>(
    new Worker(new URL('./generation.worker.ts', import.meta.url), { type: 'module', name: 'generation' }),
  );
  const startJob = jobStarter('download', (jobId) => api.cancel(jobId));
  return {
    download: (model, onProgress) => startJob((jobId) => api.download(jobId, model, proxy(onProgress))),
    isDownloaded: (model) => api.isDownloaded(model),
    importModel: (modelId, files) => api.importModel(modelId, files),
    findPartialDownload: () => api.findPartialDownload(),
    deleteModel: (model) => api.deleteModel(model),
    status: () => api.status(),
    openPort() {
      const channel = new MessageChannel();
      void api.connect(transfer(channel.port1, [channel.port1]));
      return channel.port2;
    },
    dispose,
  };
}
