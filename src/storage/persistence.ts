/**
 * Quota and persistence. `navigator.storage` exists in the window (and workers) but persistence
 * must be requested from the window, so callers pass the StorageManager in.
 */

/** At this share of the quota the UI warns that space is running out. */
export const NEARLY_FULL_RATIO = 0.8;

export interface StorageEstimateReport {
  persisted: boolean;
  usage: number;
  quota: number;
  /** usage / quota, 0 when the browser reports no quota. */
  ratio: number;
  isNearlyFull: boolean;
}

/** The parts of `navigator.storage` used here; workers' StorageManager has no `persist`. */
export interface PersistableStorage {
  persist(): Promise<boolean>;
  persisted(): Promise<boolean>;
}

export interface EstimatableStorage {
  estimate(): Promise<{ usage?: number; quota?: number }>;
  persisted(): Promise<boolean>;
}

/** Window only. Asks the browser not to evict Carrel's data under storage pressure. */
export async function requestPersistence(storage: PersistableStorage): Promise<boolean> {
  if (await storage.persisted()) return true;
  return storage.persist();
}

export async function estimateStorage(storage: EstimatableStorage): Promise<StorageEstimateReport> {
  const [estimate, persisted] = await Promise.all([storage.estimate(), storage.persisted()]);
  const usage = estimate.usage ?? 0;
  const quota = estimate.quota ?? 0;
  const ratio = quota > 0 ? usage / quota : 0;
  return { persisted, usage, quota, ratio, isNearlyFull: ratio >= NEARLY_FULL_RATIO };
}
