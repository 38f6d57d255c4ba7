import type { SyncStatus } from '../../core/sync/sync-settings';
import type { SyncClient } from '../../workers/sync/sync.client';
import {
  EMPTY_SYNC_DRAFT,
  findServerUrlProblem,
  validateSyncDraft,
  type SyncDraft,
} from './sync-form';

export interface SyncStateDeps {
  /** Started on first use (or at start-up when sync was set up earlier). */
  loadClient: () => SyncClient;
  /** `location.protocol`: an https page cannot reach a plain-HTTP server. */
  pageProtocol: string;
}

/** Settings → Sync: the form, the worker's status, and the actions. */
export class SyncSettingsState {
  status = $state<SyncStatus | null>(null);
  draft = $state<SyncDraft>({ ...EMPTY_SYNC_DRAFT });
  /** The last action's error, in words; the status has the loop's own. */
  error = $state<string | null>(null);
  isBusy = $state(false);

  constructor(private readonly deps: SyncStateDeps) {}

  /** Why the browser would block the typed server, shown while typing. */
  get serverUrlProblem(): string | undefined {
    return this.draft.serverUrl.trim() === ''
      ? undefined
      : findServerUrlProblem(this.draft.serverUrl, this.deps.pageProtocol);
  }

  /** Connects to the worker and follows its status. */
  async load(): Promise<void> {
    const client = this.deps.loadClient();
    this.status = await client.watchStatus((status) => {
      this.status = status;
    });
  }

  private async run(
    action: (
      client: SyncClient,
    ) => Promise<
      { ok: true; value: SyncStatus | null } | { ok: false; error: { message: string } }
    >,
  ): Promise<boolean> {
    this.isBusy = true;
    this.error = null;
    try {
      const result = await action(this.deps.loadClient());
      if (!result.ok) {
        this.error = result.error.message;
        return false;
      }
      if (result.value !== null) this.status = result.value;
      return true;
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
      return false;
    } finally {
      this.isBusy = false;
    }
  }

  async connect(): Promise<boolean> {
    const checked = validateSyncDraft(this.draft, this.deps.pageProtocol);
    if (!checked.ok) {
      this.error = checked.error;
      return false;
    }
    const isConnected = await this.run((client) =>
      client.connect(checked.value.settings, checked.value.passphrase),
    );
    // The passphrase and password now live with the worker only.
    if (isConnected) this.draft = { ...this.draft, passphrase: '', password: '' };
    return isConnected;
  }

  syncNow(): Promise<boolean> {
    return this.run((client) => client.syncNow());
  }

  disconnect(): Promise<boolean> {
    return this.run((client) => client.disconnect());
  }

  changePassphrase(oldPassphrase: string, newPassphrase: string): Promise<boolean> {
    return this.run((client) => client.changePassphrase(oldPassphrase, newPassphrase));
  }
}
