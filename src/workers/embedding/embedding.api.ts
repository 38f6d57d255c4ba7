/**
 * The embedding worker's contract. Everything crossing it is structured-cloneable; errors cross
 * as plain `{ code, message }`.
 */
import type { EmbeddingSettings } from '../../core/model/settings';
import type { FileId } from '../../core/model';
import type { CallKinds, WorkerResult } from '../protocol';

export type { EmbeddingSettings, WorkerResult };

export interface ChunkEmbeddingProgress {
  fileId: FileId;
  embedded: number;
  total: number;
}

export interface ModelFile {
  /** Path inside the model folder, e.g. "onnx/model_quantized.onnx". */
  path: string;
  blob: Blob;
}

/** Download progress of one model file, as transformers.js reports it. */
export interface ModelLoadProgress {
  file: string;
  status: 'initiate' | 'download' | 'progress' | 'done' | 'ready';
  /** 0–100 while downloading. */
  percent?: number;
  loadedBytes?: number;
  totalBytes?: number;
}

export type EmbeddingProgress =
  { kind: 'model'; progress: ModelLoadProgress } | ({ kind: 'chunks' } & ChunkEmbeddingProgress);
export type EmbeddingProgressListener = (progress: EmbeddingProgress) => void;

export type EmbeddingErrorCode =
  'cancelled' | 'model_unavailable' | 'embedding_failed' | 'import_failed' | 'invalid_settings';

export interface EmbeddingWorkerApi {
  /** Embeds every chunk of the project's ready files that lacks a vector of this model. */
  embedProject(
    jobId: string,
    projectId: string,
    settings: EmbeddingSettings,
    onProgress: EmbeddingProgressListener,
  ): Promise<WorkerResult<{ embedded: number; total: number }>>;
  /** Embeds one file's chunks (called after ingest). */
  embedFile(
    jobId: string,
    fileId: string,
    settings: EmbeddingSettings,
    onProgress: EmbeddingProgressListener,
  ): Promise<WorkerResult<{ embedded: number; total: number }>>;
  /** Query vectors, for search in the window (the agent worker embeds its own queries). */
  embedQueries(
    queries: string[],
    settings: EmbeddingSettings,
  ): Promise<WorkerResult<Float32Array[]>>;
  /** Loads the model now (downloading it if allowed), reporting progress. */
  prepareModel(
    jobId: string,
    settings: EmbeddingSettings,
    onProgress: EmbeddingProgressListener,
  ): Promise<WorkerResult<{ modelKey: string; runtime: string | null }>>;
  /** Stores the files of a model folder the user picked, for offline use. */
  importModelFolder(
    modelId: string,
    files: ModelFile[],
    isQuantized: boolean,
  ): Promise<WorkerResult<{ fileCount: number }>>;
  /** How many of the project's chunks carry a vector of this model: below total, search is partly BM25. */
  countEmbedded(
    projectId: string,
    settings: EmbeddingSettings,
  ): Promise<{ embedded: number; total: number }>;
  isModelAvailable(settings: EmbeddingSettings): Promise<boolean>;
  cancel(jobId: string): Promise<void>;
}

/** How each call reports a worker that could not set up (see `CallKinds`). */
export const EMBEDDING_CALLS: CallKinds<EmbeddingWorkerApi> = {
  embedProject: 'result',
  embedFile: 'result',
  embedQueries: 'result',
  prepareModel: 'result',
  importModelFolder: 'result',
  countEmbedded: 'throws',
  isModelAvailable: 'throws',
  cancel: 'throws',
};
