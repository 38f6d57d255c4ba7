/**
 * Sync on one device: connecting (key-info document: create it, or open it with the
 * passphrase), the live loop (push, pull, then wait on a long-polled `_changes` or a local
 * write), retries with back-off while offline, one tab at a time (a Web Lock), and a status in
 * words. Settings, keys and checkpoints stay on this device (`syncState`), never in backups.
 */
import { z } from 'zod';
import {
  syncSettingsSchema,
  type SyncSettings,
  type SyncStatus,
} from '../../core/sync/sync-settings';
import {
  checkPassphrase,
  createKeyInfo,
  decryptBytes,
  KDF_ITERATIONS,
  KEY_INFO_DOC_ID,
  keyInfoSchema,
  rewrapKeyInfo,
  unlockKeyInfo,
  type SyncKeys,
} from '../../core/sync/sync-crypto';
import { isSyncError, SyncError } from '../../core/sync/sync-errors';
import { SYNC_STATE_KEYS, type SyncStore } from '../../storage/sync/sync.store';
import {
  checkDatabaseName,
  createCouchClient,
  parseServerUrl,
  type ChangeSeq,
  type CouchClient,
} from './couch-client';
import {
  BYTES_ATTACHMENT,
  pullChanges,
  pushChanges,
  type ReplicationContext,
  type ReplicationProgress,
} from './replicator';

export type { SyncSettings, SyncStatus };

const SETTINGS_KEY = SYNC_STATE_KEYS.settings;
const KEYS_KEY = SYNC_STATE_KEYS.keys;
const CHECKPOINT_KEY = SYNC_STATE_KEYS.checkpoint;
const LAST_SYNCED_KEY = SYNC_STATE_KEYS.lastSyncedAt;
export const SYNC_LOCK_NAME = 'carrel-sync';
/** How long one long-poll waits for a change before asking again. */
export const LONGPOLL_MS = 25_000;
const FIRST_RETRY_MS = 2_000;
const MAX_RETRY_MS = 60_000;

const checkpointSchema = z.object({ server: z.string(), seq: z.union([z.string(), z.number()]) });

/** The part of `navigator.locks` the engine uses. */
export interface SyncLocks {
  request(
    name: string,
    options: { signal: AbortSignal },
    run: () => Promise<void>,
  ): Promise<unknown>;
}

export interface SyncEngineDeps {
  store: SyncStore;
  fetch: typeof fetch;
  now: () => number;
  /** One tab syncs at a time; without it (Node tests) the engine runs as if it held the lock. */
  locks?: SyncLocks;
  /** Calls back after local writes to synced tables; returns the unsubscribe function. */
  watchLocalWrites?: (onWrite: () => void) => () => void;
  /** Calls back when the device's network comes back; returns the unsubscribe function. */
  watchOnline?: (onOnline: () => void) => () => void;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  kdfIterations?: number;
}

export interface SyncEngine {
  status(): SyncStatus;
  onStatus(listener: (status: SyncStatus) => void): () => void;
  /** Checks the server and the passphrase; writes nothing anywhere when either is wrong. */
  connect(
    settings: SyncSettings,
    passphrase: string,
    options?: { isLive?: boolean },
  ): Promise<SyncStatus>;
  /** Starts the live loop again with what `connect` saved; false when sync is not set up. */
  resume(): Promise<boolean>;
  /** One push and pull now; rejects with the error in words. */
  syncNow(): Promise<SyncStatus>;
  changePassphrase(oldPassphrase: string, newPassphrase: string): Promise<void>;
  /**
   * Fetches a synced file's bytes from the server, decrypts them and stores them with the file;
   * rejects with the reason in words (offline, not sent yet, not syncing any more).
   */
  fetchFileBytes(fileId: string): Promise<void>;
  /** Stops syncing on this device and forgets the server, credentials and keys; data stays. */
  disconnect(): Promise<SyncStatus>;
  /** Stops the loop (closing the worker); keeps the settings. */
  stop(): void;
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export function errorInWords(error: unknown): string {
  if (isSyncError(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

interface Connection {
  settings: SyncSettings;
  client: CouchClient;
  keys: SyncKeys;
  serverKey: string;
}

export function createSyncEngine(deps: SyncEngineDeps): SyncEngine {
  const sleep = deps.sleep ?? defaultSleep;
  const listeners = new Set<(status: SyncStatus) => void>();
  let current: SyncStatus = {
    state: 'off',
    serverOrigin: null,
    database: null,
    shouldSyncKeys: false,
    lastSyncedAt: null,
    pending: 0,
    error: null,
    skipped: [],
    progress: null,
  };
  let connection: Connection | undefined;
  let loop: AbortController | undefined;
  let wake: AbortController | undefined;
  let running: Promise<unknown> = Promise.resolve();

  function publish(patch: Partial<SyncStatus>): SyncStatus {
    current = { ...current, ...patch };
    for (const listener of listeners) listener(current);
    return current;
  }

  async function refreshPending(): Promise<void> {
    publish({ pending: await deps.store.countPending() });
  }

  /** Runs one piece of replication at a time, in call order. */
  function exclusive<T>(run: () => Promise<T>): Promise<T> {
    const next = running.then(run, run);
    running = next.catch(() => undefined);
    return next;
  }

  function open(settings: SyncSettings, keys: SyncKeys): Connection {
    const client = createCouchClient(settings, deps.fetch);
    return { settings, client, keys, serverKey: `${client.origin}/${settings.database}` };
  }

  function context(active: Connection): ReplicationContext {
    return {
      store: deps.store,
      client: active.client,
      keys: active.keys,
      now: deps.now,
      shouldSyncKeys: active.settings.shouldSyncKeys,
    };
  }

  async function checkpointId(): Promise<string> {
    return `carrel-${await deps.store.deviceId()}`;
  }

  /** Where the last pull stopped: only when this device and the server agree, else the start. */
  async function readCheckpoint(active: Connection): Promise<ChangeSeq> {
    const local = checkpointSchema.safeParse(await deps.store.readState(CHECKPOINT_KEY));
    if (!local.success || local.data.server !== active.serverKey) return 0;
    const remote = await active.client.getLocal(await checkpointId());
    return remote !== undefined && JSON.stringify(remote.seq) === JSON.stringify(local.data.seq)
      ? local.data.seq
      : 0;
  }

  async function saveCheckpoint(active: Connection, seq: ChangeSeq): Promise<void> {
    await deps.store.writeState(CHECKPOINT_KEY, { server: active.serverKey, seq });
    await active.client.putLocal(await checkpointId(), { seq });
  }

  async function cycle(
    active: Connection,
    longpoll?: { ms: number; signal: AbortSignal },
  ): Promise<void> {
    if (await deps.store.isImportUnderway())
      throw new SyncError(
        'import_underway',
        'A backup import is under way; sync resumes once it is done.',
      );
    const replication = context(active);
    const onProgress = (progress: ReplicationProgress) => publish({ progress });
    if (longpoll === undefined) {
      publish({ state: 'syncing', error: null });
      await pushChanges(replication, onProgress);
    }
    const since = await readCheckpoint(active);
    const report = await pullChanges(replication, since, (seq) => saveCheckpoint(active, seq), {
      onProgress,
      ...(longpoll === undefined ? {} : { longpollMs: longpoll.ms, signal: longpoll.signal }),
    });
    // A merge made during the pull is pending again: send it in the same cycle.
    if (longpoll === undefined) await pushChanges(replication, onProgress);
    const lastSyncedAt = deps.now();
    await deps.store.writeState(LAST_SYNCED_KEY, lastSyncedAt);
    publish({
      state: 'idle',
      error: null,
      lastSyncedAt,
      progress: null,
      skipped: report.invalid.length > 0 ? report.invalid : current.skipped,
    });
    await refreshPending();
  }

  /**
   * Runs `wait` with a signal that aborts when the loop stops, when `syncNow` wakes the loop, or
   * when `watch` calls back.
   */
  async function wakeable(
    signal: AbortSignal,
    watch: ((onWake: () => void) => () => void) | undefined,
    wait: (woken: AbortSignal) => Promise<void>,
  ): Promise<void> {
    wake = new AbortController();
    const waiting = wake;
    const stopWaiting = () => waiting.abort();
    signal.addEventListener('abort', stopWaiting);
    const unsubscribe = watch?.(stopWaiting);
    try {
      await wait(waiting.signal);
    } finally {
      unsubscribe?.();
      signal.removeEventListener('abort', stopWaiting);
    }
  }

  async function runLoop(active: Connection, signal: AbortSignal): Promise<void> {
    let retryMs = FIRST_RETRY_MS;
    while (!signal.aborted) {
      try {
        await exclusive(() => cycle(active));
        retryMs = FIRST_RETRY_MS;
        // Waits for a change on the server (applied as it arrives) or a write here.
        await wakeable(signal, deps.watchLocalWrites, async (woken) => {
          try {
            await exclusive(() => cycle(active, { ms: LONGPOLL_MS, signal: woken }));
          } catch (error) {
            if (!woken.aborted) throw error;
          }
        });
      } catch (error) {
        if (signal.aborted) return;
        if (isSyncError(error) && error.code === 'import_underway') {
          // Not a failure: look again shortly, without backing off.
          publish({ state: 'waiting_for_import', error: null, progress: null });
          await sleep(FIRST_RETRY_MS, signal);
          continue;
        }
        const isOffline = isSyncError(error) && error.code === 'offline';
        publish({
          state: isOffline ? 'offline' : 'error',
          error: errorInWords(error),
          progress: null,
        });
        await refreshPending().catch(() => undefined);
        // The retry delay ends early when the network comes back or "Sync now" is pressed:
        // live sync then resumes at once instead of up to a minute later.
        await wakeable(signal, deps.watchOnline, (woken) => sleep(retryMs, woken));
        retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
      }
    }
  }

  function startLoop(active: Connection): void {
    loop?.abort();
    const controller = new AbortController();
    loop = controller;
    if (deps.locks === undefined) {
      void runLoop(active, controller.signal);
      return;
    }
    publish({ state: 'waiting_for_tab' });
    deps.locks
      .request(SYNC_LOCK_NAME, { signal: controller.signal }, () =>
        runLoop(active, controller.signal),
      )
      .catch(() => undefined);
  }

  async function readSaved(): Promise<Connection | undefined> {
    const settings = syncSettingsSchema.safeParse(await deps.store.readState(SETTINGS_KEY));
    const keys = (await deps.store.readState(KEYS_KEY)) as Partial<SyncKeys> | undefined;
    if (!settings.success || keys?.body === undefined || keys.ids === undefined) return undefined;
    return open(settings.data, { body: keys.body, ids: keys.ids });
  }

  function describe(active: Connection): Partial<SyncStatus> {
    return {
      serverOrigin: active.client.origin,
      database: active.settings.database,
      shouldSyncKeys: active.settings.shouldSyncKeys,
    };
  }

  return {
    status: () => current,

    onStatus(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async connect(settings, passphrase, options = {}) {
      parseServerUrl(settings.serverUrl);
      checkDatabaseName(settings.database);
      checkPassphrase(passphrase);
      publish({ state: 'connecting', error: null });
      try {
        const client = createCouchClient(settings, deps.fetch);
        await client.ensureDatabase();
        let keys: SyncKeys;
        const existing = await client.getDoc(KEY_INFO_DOC_ID);
        if (existing === undefined) {
          const created = await createKeyInfo(passphrase, deps.kdfIterations ?? KDF_ITERATIONS);
          const written = await client.putDoc(KEY_INFO_DOC_ID, created.info);
          if (written === 'conflict') {
            // Another device set the database up in between: open its key instead.
            keys = await unlockKeyInfo(await client.getDoc(KEY_INFO_DOC_ID), passphrase);
          } else {
            keys = created.keys;
          }
        } else {
          keys = await unlockKeyInfo(existing, passphrase);
        }
        const active = open(settings, keys);
        // Only now, with server and passphrase both checked, does anything get saved here.
        await deps.store.resetRecords();
        await deps.store.deleteState([CHECKPOINT_KEY]);
        await deps.store.writeState(SETTINGS_KEY, settings);
        await deps.store.writeState(KEYS_KEY, keys);
        connection = active;
        const isLive = options.isLive ?? true;
        // Live, the first round is still to come: "up to date" would claim what is not sent yet.
        publish({
          ...describe(active),
          state: isLive ? 'syncing' : 'idle',
          error: null,
          skipped: [],
        });
        await refreshPending();
        if (isLive) startLoop(active);
        return current;
      } catch (error) {
        publish({
          state: connection === undefined ? 'off' : current.state,
          error: errorInWords(error),
        });
        throw error;
      }
    },

    async resume() {
      const saved = await readSaved();
      if (saved === undefined) return false;
      connection = saved;
      const lastSyncedAt = await deps.store.readState(LAST_SYNCED_KEY);
      publish({
        ...describe(saved),
        lastSyncedAt: typeof lastSyncedAt === 'number' ? lastSyncedAt : null,
      });
      await refreshPending();
      startLoop(saved);
      return true;
    },

    async syncNow() {
      const active = connection ?? (await readSaved());
      if (active === undefined)
        throw new SyncError('not_connected', 'Sync is not set up on this device.');
      connection = active;
      wake?.abort();
      try {
        await exclusive(() => cycle(active));
      } catch (error) {
        const isWaiting = isSyncError(error) && error.code === 'import_underway';
        publish({
          state: isWaiting
            ? 'waiting_for_import'
            : isSyncError(error) && error.code === 'offline'
              ? 'offline'
              : 'error',
          error: errorInWords(error),
          progress: null,
        });
        throw error;
      }
      return current;
    },

    async changePassphrase(oldPassphrase, newPassphrase) {
      const active = connection ?? (await readSaved());
      if (active === undefined)
        throw new SyncError('not_connected', 'Sync is not set up on this device.');
      const doc = await active.client.getDoc(KEY_INFO_DOC_ID);
      const info = keyInfoSchema.safeParse(doc);
      if (doc === undefined || !info.success)
        throw new SyncError(
          'bad_key_info',
          'The sync database has no key document Carrel can read.',
        );
      const rewrapped = await rewrapKeyInfo(info.data, oldPassphrase, newPassphrase);
      const written = await active.client.putDoc(KEY_INFO_DOC_ID, { ...rewrapped, _rev: doc._rev });
      if (written === 'conflict')
        throw new SyncError(
          'server',
          'The key document changed on the server meanwhile; try again.',
        );
    },

    async fetchFileBytes(fileId) {
      const active = connection ?? (await readSaved());
      if (active === undefined)
        throw new SyncError(
          'not_connected',
          "This file's original is on the sync server, and sync is not set up on this device any more. Set sync up again to fetch it.",
        );
      connection = active;
      const source = await deps.store.readFileBytesSource(fileId);
      if (source?.attachment === undefined || source.attachment.hash !== source.hash)
        throw new SyncError(
          'missing_bytes',
          "This file's original has not reached the sync server yet: open Carrel on the device it was added on so it syncs, then try again.",
        );
      // The revision known to carry this content, then (a server that no longer keeps that
      // revision's bytes) the current one, which the decryption checks is the same content.
      const { rev } = source.attachment;
      const sealed =
        (rev === undefined
          ? undefined
          : await active.client.getAttachment(source.docId, BYTES_ATTACHMENT, { rev })) ??
        (await active.client.getAttachment(source.docId, BYTES_ATTACHMENT));
      if (sealed === undefined)
        throw new SyncError(
          'missing_bytes',
          "The sync server no longer holds this file's original (it may have been deleted on another device).",
        );
      const bytes = await decryptBytes(active.keys, source.docId, source.hash, sealed);
      if (!(await deps.store.storeFileBytes(fileId, source.hash, bytes)))
        throw new SyncError(
          'missing_bytes',
          'This file changed or was deleted on this device while its original arrived; nothing was stored.',
        );
    },

    async disconnect() {
      loop?.abort();
      loop = undefined;
      wake?.abort();
      await running;
      connection = undefined;
      await deps.store.deleteState([SETTINGS_KEY, KEYS_KEY, CHECKPOINT_KEY, LAST_SYNCED_KEY]);
      return publish({
        state: 'off',
        serverOrigin: null,
        database: null,
        shouldSyncKeys: false,
        lastSyncedAt: null,
        error: null,
        skipped: [],
        progress: null,
      });
    },

    stop() {
      loop?.abort();
      wake?.abort();
    },
  };
}
