/**
 * The embedding worker's contract. Everything crossing it is structured-cloneable; errors cross
 * as plain `{ code, message }`.
 */
import type { WorkerResult } from '../agent/agent.api';
import type { ChunkEmbeddingProgress } from './embed-chunks';
import type { EmbeddingSettings } from './embedding-models';
import type { ModelFile } from './model-cache';
import type { ModelLoadProgress } from './transformers-embedder';

export type {
  ChunkEmbeddingProgress,
  EmbeddingSettings,
  ModelFile,
  ModelLoadProgress,
  WorkerResult,
};

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
