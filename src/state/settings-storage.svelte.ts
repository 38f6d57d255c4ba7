import type { SessionId } from '../core/model';
import type { Backup, BackupImportReport } from '../core/ports';
import {
  estimateStorage,
  requestPersistence,
  type EstimatableStorage,
  type PersistableStorage,
  type StorageEstimateReport,
} from '../storage/persistence';
import { buildBackupFileName, describeStorageUsage, type StorageUsageView } from './storage-usage';

export interface StorageSettingsDeps {
  backup: Backup;
  /** `navigator.storage` in the window (persistence can only be requested there). */
  storage: (PersistableStorage & EstimatableStorage) | undefined;
  /** Empties every table; the caller reloads the app afterwards. */
  deleteEverything: () => Promise<void>;
  /** Lets the other states re-read what an import changed (providers, settings). */
  onImported: () => Promise<void>;
  /** Saves a file for the person (an anchor download in the app). */
  saveFile: (fileName: string, text: string) => void;
  now: () => Date;
  /** ChatGPT's data export (`conversations.json`) into sessions with their branches. */
  importChatGpt: (text: string) => Promise<{ sessions: number; messages: number; skippedNodes: number }>;
  /** One chat as Markdown: the file name and its text. */
  renderChatMarkdown: (sessionId: SessionId) => Promise<{ fileName: string; text: string }>;
}

/** The Settings screen's storage section: persistence, usage, backup export/import and wipe. */
export class StorageSettingsState {
  report = $state<StorageEstimateReport | null>(null);
  /** The last error or outcome of a storage action, shown next to it. */
  error = $state<string | null>(null);
  importReport = $state<BackupImportReport | null>(null);
  chatGptReport = $state<{ sessions: number; messages: number; skippedNodes: number } | null>(null);
  isBusy = $state(false);

  readonly usage: StorageUsageView | null = $derived(this.report ? describeStorageUsage(this.report) : null);

  constructor(private readonly deps: StorageSettingsDeps) {}

  get isSupported(): boolean {
    return this.deps.storage !== undefined;
  }

  async refresh(): Promise<void> {
    if (!this.deps.storage) return;
    this.report = await estimateStorage(this.deps.storage);
  }

  /** Asks the browser not to evict Carrel's data; the answer shows in `report.persisted`. */
  async requestPersistence(): Promise<boolean> {
    if (!this.deps.storage) return false;
    const isPersisted = await requestPersistence(this.deps.storage);
    await this.refresh();
    if (!isPersisted) {
      this.error =
        'The browser did not grant persistent storage. Installing Carrel as an app or bookmarking it usually helps.';
    }
    return isPersisted;
  }

  /** Everything (API keys only when asked) as a JSON file. */
  async exportEverything(options: { includeApiKeys: boolean }): Promise<void> {
    await this.run(async () => {
      const text = await this.deps.backup.exportBackup({ kind: 'all' }, { includeApiKeys: options.includeApiKeys });
      this.deps.saveFile(buildBackupFileName(this.deps.now()), text);
    });
  }

  /** All or nothing: a bad file changes nothing and the error names the first invalid path. */
  async importFile(file: Blob): Promise<void> {
    this.importReport = null;
    await this.run(async () => {
      this.importReport = await this.deps.backup.importBackup(await file.text());
      await this.deps.onImported();
      await this.refresh();
    });
  }

  /** All or nothing, like a backup; importing the same export twice merges rather than duplicates. */
  async importChatGptFile(file: Blob): Promise<void> {
    this.chatGptReport = null;
    await this.run(async () => {
      this.chatGptReport = await this.deps.importChatGpt(await file.text());
      await this.refresh();
    });
  }

  /** Downloads one chat as Markdown. */
  async exportChat(sessionId: SessionId): Promise<void> {
    await this.run(async () => {
      const { fileName, text } = await this.deps.renderChatMarkdown(sessionId);
      this.deps.saveFile(fileName, text);
    });
  }

  /** Asks once the person shows they keep things here (a first project, files), if not yet granted. */
  async ensurePersistence(): Promise<void> {
    if (!this.deps.storage) return;
    if (!this.report) await this.refresh();
    if (this.report?.persisted === false) await this.requestPersistence();
  }

  async deleteEverything(): Promise<void> {
    await this.run(() => this.deps.deleteEverything());
  }

  private async run(action: () => Promise<void>): Promise<void> {
    this.isBusy = true;
    this.error = null;
    try {
      await action();
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
    } finally {
      this.isBusy = false;
    }
  }
}
