/**
 * Where the sync engine keeps its own state in `syncState`, and the one question the app asks at
 * every start; apart from the sync store, so asking it loads none of the sync code.
 */
import type { CarrelDb } from '../db';

export const SYNC_STATE_KEYS = {
  settings: 'settings',
  keys: 'keys',
  checkpoint: 'checkpoint',
  lastSyncedAt: 'lastSyncedAt',
} as const;

/** Whether sync was set up on this device (so the app starts the sync worker at once). */
export async function isSyncConfigured(db: CarrelDb): Promise<boolean> {
  return (await db.syncState.get(SYNC_STATE_KEYS.settings)) !== undefined;
}
