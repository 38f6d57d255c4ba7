import { DEFAULT_LOCAL_MODEL_ID, describeLocalModel, formatModelSize, type LocalModelInfo } from '../../core/model/local-models';
import type { DownloadProgress, GenerationClient, GenerationStatus, LocalModelRef } from '../../workers/generation/generation.client';
import type { ProvidersState } from './providers.svelte';

/** Where the built-in model's files come from when nothing else is said. */
export const HUB_SOURCE_URL = 'https://huggingface.co';

/** "12 MB of 410 MB · 3.1 MB/s · about 2 min left" */
export function describeDownload(progress: DownloadProgress): string {
  const parts = [`${formatModelSize(progress.loadedBytes)} of ${formatModelSize(progress.totalBytes)}`];
  if (progress.bytesPerSecond > 0) {
    parts.push(`${formatModelSize(progress.bytesPerSecond)}/s`);
    const seconds = Math.max(0, (progress.totalBytes - progress.loadedBytes) / progress.bytesPerSecond);
    parts.push(seconds < 60 ? `about ${Math.ceil(seconds)} s left` : `about ${Math.ceil(seconds / 60)} min left`);
  }
  return parts.join(' · ');
}

/**
 * The built-in model's first run: download (with progress, cancel and resume), then a provider
 * of kind `local` like any other. Also what Settings shows about how it runs.
 */
export class BuiltinModelState {
  /**
   * 'hub' downloads from Hugging Face; 'folder' from a self-hosted copy (offline, managed sites);
   * 'device' imports a model folder picked on this device.
   */
  sourceKind = $state<'hub' | 'folder' | 'device'>('hub');
  folderUrl = $state('/models');
  modelId = $state(DEFAULT_LOCAL_MODEL_ID);
  progress = $state<DownloadProgress | null>(null);
  isDownloading = $state(false);
  isImporting = $state(false);
  message = $state('');
  status = $state<GenerationStatus | null>(null);
  private cancelJob: (() => void) | null = null;

  constructor(
    private readonly loadGeneration: () => GenerationClient,
    private readonly providers: ProvidersState,
  ) {}

  readonly model: LocalModelInfo = $derived(describeLocalModel(this.modelId));

  get sourceUrl(): string {
    // An imported folder is stored where the hub's copy would be, and loads from there.
    if (this.sourceKind !== 'folder') return HUB_SOURCE_URL;
    // Absolute, as the worker resolves nothing against the page; "/models" is this site's folder.
    return URL.parse(this.folderUrl, location.href)?.href.replace(/\/+$/, '') ?? this.folderUrl;
  }

  get fraction(): number {
    const progress = this.progress;
    return progress !== null && progress.totalBytes > 0 ? progress.loadedBytes / progress.totalBytes : 0;
  }

  /** Downloads what is missing (resuming a cancelled download), then adds the provider. */
  async start(): Promise<boolean> {
    if (this.isDownloading) return false;
    const ref: LocalModelRef = { modelId: this.modelId.trim(), sourceUrl: this.sourceUrl };
    this.isDownloading = true;
    this.message = '';
    const job = this.loadGeneration().download(ref, (progress) => (this.progress = progress));
    this.cancelJob = () => job.cancel();
    try {
      const result = await job.result;
      if (!result.ok) {
        this.message = result.error.message;
        return false;
      }
      await this.addProvider(ref);
      return true;
    } finally {
      this.isDownloading = false;
      this.cancelJob = null;
    }
  }

  /** Stores a model folder the person picked (`<input type=file webkitdirectory>`), then adds the provider. */
  async importFolder(files: readonly File[]): Promise<boolean> {
    if (files.length === 0 || this.isDownloading || this.isImporting) return false;
    const modelId = this.modelId.trim();
    this.isImporting = true;
    this.message = '';
    try {
      const result = await this.loadGeneration().importModel(
        modelId,
        files.map((file) => ({ path: file.webkitRelativePath || file.name, blob: file })),
      );
      if (!result.ok) {
        this.message = result.error.message;
        return false;
      }
      await this.addProvider({ modelId, sourceUrl: HUB_SOURCE_URL });
      return true;
    } finally {
      this.isImporting = false;
    }
  }

  private async addProvider(ref: LocalModelRef): Promise<void> {
    await this.providers.add({
      name: 'Built-in model',
      preset: 'local',
      kind: 'local',
      baseUrl: ref.sourceUrl,
      apiKey: '',
      model: ref.modelId,
    });
  }

  cancel(): void {
    this.cancelJob?.();
  }

  /**
   * After a reload: a download the previous page did not finish shows what it kept, from the
   * source it came from, and "Resume download" carries on from there.
   */
  async restoreDownload(): Promise<void> {
    const partial = await this.loadGeneration().findPartialDownload();
    if (partial === null || this.isDownloading || this.progress !== null) return;
    const { modelId, sourceUrl } = partial.model;
    this.modelId = modelId;
    if (sourceUrl === HUB_SOURCE_URL) {
      this.sourceKind = 'hub';
    } else {
      this.sourceKind = 'folder';
      this.folderUrl = sourceUrl;
    }
    this.progress = { loadedBytes: partial.loadedBytes, totalBytes: partial.totalBytes, bytesPerSecond: 0, file: '' };
    this.message = 'The download was interrupted; it resumes where it stopped.';
  }

  async refreshStatus(): Promise<void> {
    this.status = await this.loadGeneration().status();
  }

  /** The built-in provider, once the person chose it. */
  get provider() {
    return this.providers.providers.find((provider) => provider.kind === 'local') ?? null;
  }

  /** Frees the model's space (it counts in the storage meter); the next answer downloads it again. */
  async deleteFiles(): Promise<void> {
    const provider = this.provider;
    if (provider === null) return;
    await Promise.all(
      provider.models.map((modelId) => this.loadGeneration().deleteModel({ modelId, sourceUrl: provider.baseUrl })),
    );
    this.progress = null;
    this.message = 'The model files were deleted.';
    await this.refreshStatus();
  }
}

/** "Runs with WebAssembly, 2 threads · last answer 40 tokens, stopped · 13.6 tokens/s · first token after 1.2 s." */
export function describeGenerationStatus(status: GenerationStatus | null): string {
  if (status === null || status.runtime === null) return 'Not loaded yet: it starts with the first answer.';
  const parts = [`Runs with ${status.runtime}`];
  const last = status.last;
  if (last !== null) {
    const ending = last.finishReason === 'stopped' ? ', stopped' : last.finishReason === 'length' ? ', cut at the token limit' : '';
    parts.push(`last answer ${last.outputTokens} tokens${ending}`);
    if (last.tokensPerSecond !== null) parts.push(`${last.tokensPerSecond.toFixed(1)} tokens/s`);
    parts.push(`first token after ${(last.timeToFirstTokenMs / 1000).toFixed(1)} s`);
    if (last.reusedPromptTokens > 0) parts.push(`${last.reusedPromptTokens} of ${last.promptTokens} prompt tokens reused`);
  }
  return `${parts.join(' · ')}.`;
}
