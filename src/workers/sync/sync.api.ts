/**
 * The sync worker's contract. The worker owns sync on this device: the server's settings and
 * credentials, the keys (non-extractable CryptoKeys in IndexedDB), the live loop. The UI asks it
 * to connect, sync now or stop, and listens to its status.
 */
import type { SyncSettings, SyncStatus } from '../../core/sync/sync-settings';
import type { CallKinds, WorkerResult } from '../protocol';

export type { SyncSettings, SyncStatus };

export type SyncStatusListener = (status: SyncStatus) => void;

export interface SyncWorkerApi {
  /** The status now, and every change after through `listener`. */
  watchStatus(listener: SyncStatusListener): Promise<SyncStatus>;
  /** Checks server and passphrase, then syncs continuously; writes nothing when either is wrong. */
  connect(settings: SyncSettings, passphrase: string): Promise<WorkerResult<SyncStatus>>;
  syncNow(): Promise<WorkerResult<SyncStatus>>;
  changePassphrase(oldPassphrase: string, newPassphrase: string): Promise<WorkerResult<null>>;
  /** Fetches a synced file's bytes from the server into this device's copy of the file. */
  fetchFileBytes(fileId: string): Promise<WorkerResult<null>>;
  /** Stops syncing on this device and forgets the server, credentials and keys; data stays. */
  disconnect(): Promise<WorkerResult<SyncStatus>>;
}

export const SYNC_CALLS: CallKinds<SyncWorkerApi> = {
  watchStatus: 'throws',
  connect: 'result',
  syncNow: 'result',
  changePassphrase: 'result',
  fetchFileBytes: 'result',
  disconnect: 'result',
};
