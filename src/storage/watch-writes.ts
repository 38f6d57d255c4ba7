import Dexie, { type ObservabilitySet } from 'dexie';
import type { CarrelDb } from './db';

/**
 * Calls `onWrite` after every committed transaction that wrote to one of `tables` of this
 * database: in this context, and (Dexie relays it over a BroadcastChannel) in any other tab or
 * worker of the origin. Cheaper than `observe`: nothing is re-read, so a cache can drop its
 * copy and rebuild only when next asked. Returns the unsubscribe function.
 */
export function watchTableWrites(
  db: CarrelDb,
  tables: readonly string[],
  onWrite: () => void,
): () => void {
  const prefixes = tables.map((table) => `idb://${db.name}/${table}/`);
  const listener = (parts: ObservabilitySet) => {
    // `all`: Dexie could not tell what changed (a page restored from the back-forward cache).
    const isHit = Object.keys(parts).some(
      (part) => part === 'all' || prefixes.some((prefix) => part.startsWith(prefix)),
    );
    if (isHit) onWrite();
  };
  Dexie.on('storagemutated', listener);
  return () => Dexie.on.storagemutated.unsubscribe(listener);
}
