import { checkSettingValue, isSettingKey } from '../core/model/settings';
import type { Clock, SettingsStore } from '../core/ports';
import type { CarrelDb } from './db';
import { StorageError } from './errors';
import { guardStorage } from './guard';
import { formatIssuePath } from './parse-row';

/**
 * Key/value settings. A registered key (core/model/settings.ts) only takes a value its schema
 * accepts, and a stored value its schema refuses (written by an older version, or around the
 * store) reads as absent, so callers fall back to the default instead of meeting a wrong type.
 * Other keys keep whatever structured clone keeps; their callers parse what they read.
 */
export function createSettingsStore(
  db: CarrelDb,
  clock: Clock,
): SettingsStore & { delete(key: string): Promise<void> } {
  return {
    get: <T>(key: string) =>
      guardStorage(db, async () => {
        const row = await db.settings.get(key);
        if (row === undefined) return undefined;
        if (isSettingKey(key) && !checkSettingValue(key, row.value).success) return undefined;
        // The port leaves the value's shape to the caller, which owns the setting's schema.
        return row.value as T;
      }),
    set: (key, value) =>
      guardStorage(db, async () => {
        if (isSettingKey(key)) {
          const checked = checkSettingValue(key, value);
          if (!checked.success) {
            const issue = checked.error.issues[0];
            const path = issue === undefined ? '' : formatIssuePath(issue.path);
            throw new StorageError(
              'invalid_data',
              `The setting "${key}${path === '' ? '' : `.${path}`}" ${issue?.message ?? 'is invalid'}.`,
            );
          }
        }
        await db.settings.put({ key, value, updatedAt: clock.now() });
      }),
    delete: (key) =>
      guardStorage(db, async () => {
        await db.settings.delete(key);
      }),
  };
}
