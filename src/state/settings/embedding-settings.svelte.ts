import {
  DEFAULT_EMBEDDING_SETTINGS,
  EMBEDDING_SETTINGS_KEY,
  embeddingSettingsSchema,
  readEmbeddingSettings,
  type EmbeddingClient,
  type EmbeddingProgress,
  type EmbeddingSettings,
  type ModelFile,
} from '../../workers/embedding/embedding.client';
import type { SettingsStore } from '../../core/ports';
import type { NoticesState } from '../shell/notices.svelte';
import { ModelDownload } from './model-download';

export interface EmbeddingSettingsDeps {
  settings: SettingsStore;
  notices: NoticesState;
  /** The embedding worker starts on first use. */
  loadEmbedding(): EmbeddingClient;
}

/** "carrel/tiny-embedder is ready (WebAssembly, 2 threads)." */
export function readyStatus(modelId: string, runtime: string | null): string {
  return runtime === null ? `${modelId} is ready.` : `${modelId} is ready (${runtime}).`;
}

/** Embedding model choice, source, downloads, "Download now" and folder import (Settings). */
export class EmbeddingSettingsState {
  settings = $state<EmbeddingSettings>(DEFAULT_EMBEDDING_SETTINGS);
  /** 0–1 while a model loads; null otherwise. */
  progress = $state<number | null>(null);
  progressLabel = $state('');
  status = $state<string | null>(null);
  /** The last download could not reach the network: Settings offers to retry. */
  canRetry = $state(false);
  isBusy = $state(false);
  private cancelPrepare: (() => void) | null = null;
  private download = new ModelDownload();

  constructor(private readonly deps: EmbeddingSettingsDeps) {}

  async load(): Promise<void> {
    this.settings = await readEmbeddingSettings(this.deps.settings);
  }

  async save(patch: Partial<EmbeddingSettings>): Promise<boolean> {
    const parsed = embeddingSettingsSchema.safeParse({ ...$state.snapshot(this.settings), ...patch });
    if (!parsed.success) {
      this.status = 'These settings are incomplete: a self-hosted source needs its address.';
      return false;
    }
    this.settings = parsed.data;
    this.status = null;
    await this.deps.notices.guard('Could not save the embedding settings', () =>
      this.deps.settings.set(EMBEDDING_SETTINGS_KEY, parsed.data),
    );
    return true;
  }

  /** Loads the model now (downloading if allowed), with progress. */
  async downloadNow(): Promise<void> {
    if (this.isBusy) return;
    this.isBusy = true;
    this.progress = 0;
    this.progressLabel = '';
    this.download = new ModelDownload();
    this.status = null;
    this.canRetry = false;
    try {
      const job = this.deps.loadEmbedding().prepareModel($state.snapshot(this.settings), (event) => this.onProgress(event));
      this.cancelPrepare = () => job.cancel();
      const result = await job.result;
      this.status = result.ok ? readyStatus(this.settings.modelId, result.value.runtime) : result.error.message;
      this.canRetry = !result.ok && result.error.code === 'download_failed';
    } catch (error) {
      this.status = error instanceof Error ? error.message : String(error);
    } finally {
      this.cancelPrepare = null;
      this.progress = null;
      this.isBusy = false;
    }
  }

  cancel(): void {
    this.cancelPrepare?.();
  }

  /** Stores a model folder the person picked (`<input type=file webkitdirectory>`). */
  async importFolder(files: readonly File[]): Promise<void> {
    if (files.length === 0 || this.isBusy) return;
    this.isBusy = true;
    this.status = null;
    try {
      const modelFiles: ModelFile[] = files.map((file) => ({
        path: file.webkitRelativePath || file.name,
        blob: file,
      }));
      const result = await this.deps.loadEmbedding().importModelFolder(this.settings.modelId, modelFiles, this.settings.isQuantized);
      if (result.ok) {
        await this.save({ source: { kind: 'imported' } });
        this.status = `Imported ${result.value.fileCount} files for ${this.settings.modelId}.`;
      } else {
        this.status = result.error.message;
      }
    } catch (error) {
      this.status = error instanceof Error ? error.message : String(error);
    } finally {
      this.isBusy = false;
    }
  }

  private onProgress(event: EmbeddingProgress): void {
    if (event.kind !== 'model') return;
    const view = this.download.update(event.progress);
    this.progress = view.fraction ?? 0;
    this.progressLabel = view.label;
  }
}

/** The embedding models the Settings picker offers. */
export { EMBEDDING_MODELS } from '../../workers/embedding/embedding.client';
