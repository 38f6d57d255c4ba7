/// <reference lib="webworker" />
// First: zod without its eval probe, and CSP violations logged where tests can see them.
import '../../boot/strict-csp';
import { openCarrelDb } from '../../storage';
import { createSyncStore } from '../../storage/sync/sync.store';
import { SYNCED_TABLES } from '../../storage/sync/synced-tables';
import { watchTableWrites } from '../../storage/watch-writes';
import { lazyHost, serve, WORKER_CLOCK } from '../protocol';
import { createSyncEngine } from './sync-engine';
import { SYNC_CALLS, type SyncWorkerApi } from './sync.api';
import { createSyncHost } from './sync-host';

/** The sync worker: encryption and replication off the UI thread, one tab at a time. */
serve(
  lazyHost<SyncWorkerApi>(SYNC_CALLS, async () => {
    const db = await openCarrelDb();
    const engine = createSyncEngine({
      store: createSyncStore(db),
      fetch: (input, init) => fetch(input, init),
      now: () => WORKER_CLOCK.now(),
      locks: navigator.locks,
      watchLocalWrites: (onWrite) => watchTableWrites(db, SYNCED_TABLES, onWrite),
      watchOnline: (onOnline) => {
        self.addEventListener('online', onOnline);
        return () => self.removeEventListener('online', onOnline);
      },
    });
    // Sync set up earlier on this device starts again at once.
    await engine.resume();
    return createSyncHost(engine);
  }),
);
