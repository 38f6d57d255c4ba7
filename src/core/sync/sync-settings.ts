/** What a person sets up for sync, and the status the sync worker reports, in words. */
import { z } from 'zod';

export const syncSettingsSchema = z.object({
  serverUrl: z.string().min(1),
  database: z.string().min(1),
  username: z.string(),
  password: z.string(),
  /** Off by default: providers then travel without their API keys and headers. */
  shouldSyncKeys: z.boolean(),
});
export type SyncSettings = z.infer<typeof syncSettingsSchema>;

export type SyncState =
  | 'off'
  | 'connecting'
  | 'syncing'
  | 'idle'
  | 'offline'
  | 'error'
  | 'waiting_for_tab'
  | 'waiting_for_import';

export interface SyncProgress {
  phase: 'push' | 'pull';
  done: number;
}

export interface SyncStatus {
  state: SyncState;
  serverOrigin: string | null;
  database: string | null;
  shouldSyncKeys: boolean;
  lastSyncedAt: number | null;
  /** Local changes the server does not have yet. */
  pending: number;
  /** What went wrong, in words; null when nothing did. */
  error: string | null;
  /** Records that arrived but could not be stored (e.g. written by a newer Carrel). */
  skipped: string[];
  progress: SyncProgress | null;
}
