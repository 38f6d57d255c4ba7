import { syncSettingsSchema } from '../../core/sync/sync-settings';
import { isSyncError } from '../../core/sync/sync-errors';
import { isStorageError } from '../../storage';
import { errorText, parseCall, type WorkerError, type WorkerResult } from '../protocol';
import type { SyncEngine } from './sync-engine';
import type { SyncWorkerApi } from './sync.api';

function toWorkerError(error: unknown): WorkerError {
  if (isSyncError(error) || isStorageError(error))
    return { code: error.code, message: error.message };
  return { code: 'unknown', message: errorText(error) };
}

async function settle<T>(run: () => Promise<T>): Promise<WorkerResult<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    return { ok: false, error: toWorkerError(error) };
  }
}

/** The sync worker's API over the engine, free of Comlink so tests drive it directly. */
export function createSyncHost(engine: SyncEngine): SyncWorkerApi {
  return {
    watchStatus(listener) {
      engine.onStatus(listener);
      return Promise.resolve(engine.status());
    },
    async connect(rawSettings, passphrase) {
      const settings = parseCall(
        syncSettingsSchema,
        rawSettings,
        'The sync settings are incomplete.',
      );
      if (!settings.ok) return settings;
      return settle(() => engine.connect(settings.value, String(passphrase)));
    },
    syncNow: () => settle(() => engine.syncNow()),
    changePassphrase: (oldPassphrase, newPassphrase) =>
      settle(async () => {
        await engine.changePassphrase(String(oldPassphrase), String(newPassphrase));
        return null;
      }),
    fetchFileBytes: (fileId) =>
      settle(async () => {
        await engine.fetchFileBytes(String(fileId));
        return null;
      }),
    disconnect: () => settle(() => engine.disconnect()),
  };
}
