import { proxy } from 'comlink';
import { connect, type WorkerResult } from '../protocol';
import type { SyncSettings, SyncStatus, SyncStatusListener, SyncWorkerApi } from './sync.api';

export type { SyncSettings, SyncStatus } from './sync.api';

/** The UI side of the sync worker. */
export interface SyncClient {
  watchStatus(listener: SyncStatusListener): Promise<SyncStatus>;
  connect(settings: SyncSettings, passphrase: string): Promise<WorkerResult<SyncStatus>>;
  syncNow(): Promise<WorkerResult<SyncStatus>>;
  changePassphrase(oldPassphrase: string, newPassphrase: string): Promise<WorkerResult<null>>;
  fetchFileBytes(fileId: string): Promise<WorkerResult<null>>;
  disconnect(): Promise<WorkerResult<SyncStatus>>;
  dispose(): void;
}

export function createSyncClient(): SyncClient {
  const { api, dispose } = connect<SyncWorkerApi>(
    new Worker(new URL('./sync.worker.ts', import.meta.url), { type: 'module', name: 'sync' }),
  );
  return {
    watchStatus: (listener) => api.watchStatus(proxy(listener)),
    connect: (settings, passphrase) => api.connect(settings, passphrase),
    syncNow: () => api.syncNow(),
    changePassphrase: (oldPassphrase, newPassphrase) =>
      api.changePassphrase(oldPassphrase, newPassphrase),
    fetchFileBytes: (fileId) => api.fetchFileBytes(fileId),
    disconnect: () => api.disconnect(),
    dispose,
  };
}
