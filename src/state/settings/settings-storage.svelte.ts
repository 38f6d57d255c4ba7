import type { SessionId, SharedChatImportReport } from '../../core/model';
import type { Backup, BackupImportReport, BackupProgress } from '../../core/ports';
import {
  estimateStorage,
  requestPersistence,
  type EstimatableStorage,
  type PersistableStorage,
  type StorageEstimateReport,
} from '../../storage';
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
  saveFile: (fileName: string, content: Blob) => void;
  now: () => Date;
  /** ChatGPT's data export (`conversations.json`) into sessions with their branches. */
  importChatGpt: (text: string) => Promise<{ sessions: number; messages: number; skippedNodes: number }>;
  /** One chat (the branch on screen) as a file of this format: its name and its text. */
  renderChat: (sessionId: SessionId, format: ChatFileFormat) => Promise<{ fileName: string; text: string }>;
  /** Opens the browser's print dialog on this page (where "Save as PDF" is offered). */
  printPage: (html: string) => Promise<void>;
  /** A chat shared as a file (its web page or its JSON), as a new chat. */
  importSharedChat: (text: string) => Promise<SharedChatImportReport>;
}

/** What one chat is shared as: Markdown to paste elsewhere, or a web page that imports back. */
export type ChatFileFormat = 'markdown' | 'html';

const CHAT_FILE_TYPES: Record<ChatFileFormat, string> = {
  markdown: 'text/markdown',
  html: 'text/html',
};

/** The Settings screen's storage section: persistence, usage, backup export/import and wipe. */
export class StorageSettingsState {
  report = $state<StorageEstimateReport | null>(null);
  /** The last error or outcome of a storage action, shown next to it. */
  error = $state<string | null>(null);
  importReport = $state<BackupImportReport | null>(null);
  chatGptReport = $state<{ sessions: number; messages: number; skippedNodes: number } | null>(null);
  sharedChatReport = $state<SharedChatImportReport | null>(null);
  /** Why the last export or print of one chat failed, shown beside the Export menu. */
  chatExportError = $state<string | null>(null);
  isBusy = $state(false);
  /** The backup export or import under way, with how far it has got; null when none is. */
  backupJob = $state<{ kind: 'export' | 'import'; progress: BackupProgress } | null>(null);
  private backupController: AbortController | null = null;

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

  /** Everything (API keys only when asked) as a backup file, with progress and a cancel. */
  async exportEverything(options: { includeApiKeys: boolean }): Promise<void> {
    await this.runBackupJob('export', async (work) => {
      const file = await this.deps.backup.exportBackup({ kind: 'all' }, { ...work, includeApiKeys: options.includeApiKeys });
      this.deps.saveFile(buildBackupFileName(this.deps.now()), file);
    });
  }

  /** All or nothing: a bad file or a cancel changes nothing; the error names the first problems. */
  async importFile(file: Blob): Promise<void> {
    this.importReport = null;
    await this.runBackupJob('import', async (work) => {
      this.importReport = await this.deps.backup.importBackup(file, work);
      await this.deps.onImported();
      await this.refresh();
    });
  }

  /** Stops the export or import under way; an import then leaves the data as it was. */
  cancelBackupJob(): void {
    this.backupController?.abort(new DOMException('The person cancelled.', 'AbortError'));
  }

  /** One backup job at a time, with its progress shown and a cancel that says what it left. */
  private async runBackupJob(
    kind: 'export' | 'import',
    work: (options: { signal: AbortSignal; onProgress: (progress: BackupProgress) => void }) => Promise<void>,
  ): Promise<void> {
    const controller = new AbortController();
    this.backupController = controller;
    this.backupJob = { kind, progress: { done: 0, total: 0 } };
    try {
      await this.run(async () => {
        try {
          await work({ signal: controller.signal, onProgress: (progress) => (this.backupJob = { kind, progress }) });
        } catch (error) {
          if (!controller.signal.aborted) throw error;
          this.error = kind === 'import' ? 'Import cancelled: nothing was changed.' : 'Export cancelled: no file was saved.';
        }
      });
    } finally {
      this.backupJob = null;
      this.backupController = null;
    }
  }

  /** All or nothing, like a backup; importing the same export twice merges rather than duplicates. */
  async importChatGptFile(file: Blob): Promise<void> {
    this.chatGptReport = null;
    await this.run(async () => {
      this.chatGptReport = await this.deps.importChatGpt(await file.text());
      await this.refresh();
    });
  }

  /** Downloads one chat as Markdown or as a web page. */
  async exportChat(sessionId: SessionId, format: ChatFileFormat = 'markdown'): Promise<void> {
    await this.runChatExport(async () => {
      const { fileName, text } = await this.deps.renderChat(sessionId, format);
      this.deps.saveFile(fileName, new Blob([text], { type: CHAT_FILE_TYPES[format] }));
    });
  }

  /** Prints one chat's web page, or saves it as a PDF from the print dialog. */
  async printChat(sessionId: SessionId): Promise<void> {
    await this.runChatExport(async () => {
      const { text } = await this.deps.renderChat(sessionId, 'html');
      await this.deps.printPage(text);
    });
  }

  private async runChatExport(action: () => Promise<void>): Promise<void> {
    this.chatExportError = null;
    try {
      await action();
    } catch (error) {
      this.chatExportError = error instanceof Error ? error.message : String(error);
    }
  }

  /** A shared chat file becomes a new chat; a bad file is refused whole, with the reason. */
  async importSharedChatFile(file: Blob): Promise<void> {
    this.sharedChatReport = null;
    await this.run(async () => {
      this.sharedChatReport = await this.deps.importSharedChat(await file.text());
      await this.refresh();
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
