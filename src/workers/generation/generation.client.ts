import { proxy, transfer } from 'comlink';
import { connectRenewing, jobStarter, type WorkerJob } from '../protocol';
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
  /**
   * Calls `listener` when a worker whose set-up failed has been replaced: ports opened on the
   * old one lead nowhere, so their holders open new ones. Answers the way to stop listening.
   */
  onRestart(listener: () => void): () => void;
  /**
   * Replaces the worker at once, for a set-up failure seen over a port (the agent worker's):
   * its calls through that port would fail the same way for the worker's whole life. The
   * `onRestart` listeners then open new ports.
   */
  renew(): void;
  dispose(): void;
}

export function createGenerationClient(): GenerationClient {
  const restartListeners = new Set<() => void>();
  let started = 0;
  const worker = connectRenewing<GenerationWorkerApi>(
    () => new Worker(new URL('./generation.worker.ts', import.meta.url), { type: 'module', name: 'generation' }),
    () => {
      if (++started > 1) for (const listener of restartListeners) listener();
    },
  );
  const { call } = worker;
  const startJob = jobStarter('download', (jobId) => call((api) => api.cancel(jobId)));
  return {
    download: (model, onProgress) => startJob((jobId) => call((api) => api.download(jobId, model, proxy(onProgress)))),
    isDownloaded: (model) => call((api) => api.isDownloaded(model)),
    importModel: (modelId, files) => call((api) => api.importModel(modelId, files)),
    findPartialDownload: () => call((api) => api.findPartialDownload()),
    deleteModel: (model) => call((api) => api.deleteModel(model)),
    status: () => call((api) => api.status()),
    openPort() {
      const channel = new MessageChannel();
      void call((api) => api.connect(transfer(channel.port1, [channel.port1])));
      return channel.port2;
    },
    onRestart(listener) {
      restartListeners.add(listener);
      return () => restartListeners.delete(listener);
    },
    renew: () => worker.renew(),
    dispose: () => worker.dispose(),
  };
}
