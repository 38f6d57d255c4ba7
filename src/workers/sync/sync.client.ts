import { proxy } from 'comlink';
import { connectRenewing, type WorkerResult } from '../protocol';
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
  const worker = connectRenewing<SyncWorkerApi>(
    () => new Worker(new URL('./sync.worker.ts', import.meta.url), { type: 'module', name: 'sync' }),
  );
  const { call } = worker;
  return {
    watchStatus: (listener) => call((api) => api.watchStatus(proxy(listener))),
    connect: (settings, passphrase) => call((api) => api.connect(settings, passphrase)),
    syncNow: () => call((api) => api.syncNow()),
    changePassphrase: (oldPassphrase, newPassphrase) =>
      call((api) => api.changePassphrase(oldPassphrase, newPassphrase)),
    fetchFileBytes: (fileId) => call((api) => api.fetchFileBytes(fileId)),
    disconnect: () => call((api) => api.disconnect()),
    dispose: () => worker.dispose(),
  };
}
