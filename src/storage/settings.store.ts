import type { Clock, SettingsStore } from '../core/ports';
import type { CarrelDb } from './db';
import { guardStorage } from './guard';

/** Key/value settings. Values are whatever structured clone keeps; callers parse what they read. */
export function createSettingsStore(
  db: CarrelDb,
  clock: Clock,
): SettingsStore & { delete(key: string): Promise<void> } {
  return {
    get: <T>(key: string) =>
      guardStorage(db, async () => {
        const row = await db.settings.get(key);
        // The port leaves the value's shape to the caller, which owns the setting's schema.
        return row === undefined ? undefined : (row.value as T);
      }),
    set: (key, value) =>
      guardStorage(db, async () => {
        await db.settings.put({ key, value, updatedAt: clock.now() });
      }),
    delete: (key) =>
      guardStorage(db, async () => {
        await db.settings.delete(key);
      }),
  };
}
