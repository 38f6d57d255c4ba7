/**
 * The generation worker's contract: the built-in model runs there, in its own worker, so a long
 * prompt never blocks the UI or the agent loop. The UI calls it for downloads and status; the
 * agent worker calls `generate` over a MessagePort the UI hands it. Errors cross as plain
 * `{ code, message }`.
 */
import type { CallKinds, WorkerResult } from '../protocol';
import type { ChatTemplateMessage, ChatTemplateTool } from '../../llm/local-chat-messages';
import type { ModelFile } from '../embedding/embedding.api';

export type { ChatTemplateMessage, ChatTemplateTool, ModelFile, WorkerResult };

/** Where a built-in model's files come from: the hub, or a folder laid out like it. */
export interface LocalModelRef {
  modelId: string;
  /** `https://huggingface.co` for the hub, else the self-hosted folder's absolute URL. */
  sourceUrl: string;
}

export interface DownloadProgress {
  loadedBytes: number;
  /** 0 until the sizes of all files are known. */
  totalBytes: number;
  /** Bytes per second over the last few seconds. */
  bytesPerSecond: number;
  /** The file being fetched. */
  file: string;
}
export type DownloadProgressListener = (progress: DownloadProgress) => void;

/** A download a previous page started and did not finish: what it kept, to show and resume. */
export interface PartialDownload {
  model: LocalModelRef;
  loadedBytes: number;
  totalBytes: number;
}

export interface LocalGenerationRequest {
  model: LocalModelRef;
  messages: ChatTemplateMessage[];
  tools: ChatTemplateTool[];
  maxNewTokens: number;
  /** Sampling: without either, the model decodes greedily (the same answer every time). */
  temperature?: number;
  topP?: number;
}

export interface LocalGenerationResult {
  finishReason: 'stop' | 'length' | 'stopped';
  promptTokens: number;
  /** Prompt tokens whose keys and values came from the previous turn's cache. */
  reusedPromptTokens: number;
  outputTokens: number;
  timeToFirstTokenMs: number;
  tokensPerSecond: number | null;
}

export interface GenerationStatus {
  /** "WebAssembly, 2 threads" once a model is loaded, else null. */
  runtime: string | null;
  loadedModelId: string | null;
  last: LocalGenerationResult | null;
}

export type GenerationErrorCode =
  'cancelled' | 'download_failed' | 'import_failed' | 'not_downloaded' | 'out_of_memory' | 'generation_failed';

export interface GenerationWorkerApi {
  /**
   * Fetches the model's files into the browser cache (resuming what an earlier attempt kept),
   * reporting progress; `cancel(jobId)` stops it and keeps what arrived.
   */
  download(jobId: string, model: LocalModelRef, onProgress: DownloadProgressListener): Promise<WorkerResult<{ bytes: number }>>;
  cancel(jobId: string): Promise<void>;
  /**
   * Stores a model folder picked on this device (its files keyed as the hub's copy would be, so
   * the model is then used with the hub as its source); refuses a folder missing a needed file.
   */
  importModel(modelId: string, files: ModelFile[]): Promise<WorkerResult<{ bytes: number }>>;
  isDownloaded(model: LocalModelRef): Promise<boolean>;
  /** The unfinished download kept in the cache (a reload interrupted it), if any. */
  findPartialDownload(): Promise<PartialDownload | null>;
  /** Removes the model's files (and partial downloads) from the cache; unloads it. */
  deleteModel(model: LocalModelRef): Promise<void>;
  /**
   * Streams one answer: `onText` gets each decoded piece. `stopFlag` is an Int32Array over a
   * SharedArrayBuffer: the caller sets element 0 to 1 to stop, read between tokens (a message
   * would wait until generation ends, since the worker reads none while it computes).
   */
  generate(
    request: LocalGenerationRequest,
    stopFlag: Int32Array,
    onText: (text: string) => void,
  ): Promise<WorkerResult<LocalGenerationResult>>;
  status(): Promise<GenerationStatus>;
  /** Serves the same API on `port` (how the agent worker reaches this worker). */
  connect(port: MessagePort): void;
}

/** What the generation host answers: the API without `connect`, which the worker itself serves. */
export type GenerationHostApi = Omit<GenerationWorkerApi, 'connect'>;

/** How each call reports a worker that could not set up (see `CallKinds`). */
export const GENERATION_CALLS: CallKinds<GenerationHostApi> = {
  download: 'result',
  cancel: 'throws',
  importModel: 'result',
  isDownloaded: 'throws',
  findPartialDownload: 'throws',
  deleteModel: 'throws',
  generate: 'result',
  status: 'throws',
};
