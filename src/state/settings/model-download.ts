import type { ModelLoadProgress } from '../../workers/embedding/embedding.client';

/** What the Settings screen shows while a model loads. */
export interface ModelDownloadView {
  /** 0–1 over the files whose size is known; null before any size is known. */
  fraction: number | null;
  /** The files still loading ("Downloading onnx/model.onnx"), else the last step. */
  label: string;
}

interface FileState {
  loaded: number;
  total: number;
  isDone: boolean;
}

/**
 * Follows the per-file events of one model load. transformers.js loads a model's files in
 * parallel and reports each one's events interleaved, so the last event alone would name a small
 * file that just finished while the large one is still on its way.
 */
export class ModelDownload {
  private readonly files = new Map<string, FileState>();
  private lastStep = '';

  update(event: ModelLoadProgress): ModelDownloadView {
    if (event.file !== '') {
      const file = this.files.get(event.file) ?? { loaded: 0, total: 0, isDone: false };
      if (event.totalBytes !== undefined) file.total = event.totalBytes;
      if (event.loadedBytes !== undefined) file.loaded = event.loadedBytes;
      if (event.status === 'done' || event.status === 'ready') {
        file.isDone = true;
        file.loaded = file.total;
      }
      this.files.set(event.file, file);
    }
    this.lastStep = event.status === 'ready' ? 'Ready' : `${event.status} ${event.file}`.trim();
    return this.view();
  }

  private view(): ModelDownloadView {
    const entries = [...this.files];
    const pending = entries.filter(([, file]) => !file.isDone).map(([name]) => name);
    const sized = entries.map(([, file]) => file).filter((file) => file.total > 0);
    const total = sized.reduce((sum, file) => sum + file.total, 0);
    const loaded = sized.reduce((sum, file) => sum + Math.min(file.loaded, file.total), 0);
    return {
      fraction: total > 0 ? loaded / total : null,
      label: pending.length > 0 ? `Downloading ${pending.join(', ')}` : this.lastStep,
    };
  }
}
