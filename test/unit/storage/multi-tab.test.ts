// liveQuery only runs where IndexedDB is a global, as in a browser or worker.
import 'fake-indexeddb/auto';
import { Dexie } from 'dexie';
import { describe, expect, it, vi } from 'vitest';
import { asSessionId, type Session } from '../../../src/core/model';
import { CURRENT_SCHEMA_VERSION, openCarrelDb, SCHEMA_V3 } from '../../../src/storage/db';
import { observe } from '../../../src/storage/observe';
import { estimateStorage, requestPersistence } from '../../../src/storage/persistence';
import { createSessionStore } from '../../../src/storage/session.store';
import {
  buildSession,
  createFrozenClock,
  createTestIndexedDb,
  openTestDb,
} from './storage-fixtures';

describe('multi-tab', () => {
  it("closes this tab's connection and asks for a reload when another tab upgrades the schema", async () => {
    const dexieOptions = createTestIndexedDb();
    const onVersionChange = vi.fn();
    const db = await openCarrelDb('two-tabs', { dexie: dexieOptions, onVersionChange });

    const newerTab = new Dexie('two-tabs', dexieOptions);
    newerTab.version(CURRENT_SCHEMA_VERSION).stores(SCHEMA_V3);
    newerTab.version(CURRENT_SCHEMA_VERSION + 1).stores({ ...SCHEMA_V3, drafts: 'id' });
    await newerTab.open();

    expect(onVersionChange).toHaveBeenCalledOnce();
    expect(db.isOpen()).toBe(false);
    expect(newerTab.verno).toBe(CURRENT_SCHEMA_VERSION + 1);
    newerTab.close();
  });

  it('reports an upgrade blocked by an older tab that keeps its connection open', async () => {
    const dexieOptions = createTestIndexedDb();
    // An old tab at schema 1 (Dexie stores version n as 10n) that ignores versionchange.
    const oldTab = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = dexieOptions.indexedDB.open('blocked-upgrade', 10);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(new Error('could not open the old tab'));
    });
    const onBlocked = vi.fn(() => oldTab.close());

    const db = await openCarrelDb('blocked-upgrade', { dexie: dexieOptions, onBlocked });

    expect(onBlocked).toHaveBeenCalledOnce();
    expect(db.verno).toBe(CURRENT_SCHEMA_VERSION);
    db.close();
  });
});

describe('observe', () => {
  it('delivers the current value, then a new one after every change', async () => {
    const db = await openTestDb();
    const sessions = createSessionStore(db, createFrozenClock());
    const seen: string[][] = [];
    let resolveSecond: () => void = () => undefined;
    const second = new Promise<void>((resolve) => (resolveSecond = resolve));
    const stop = observe(
      () => sessions.list(),
      (list: Session[]) => {
        seen.push(list.map((s) => s.id));
        if (seen.length === 2) resolveSecond();
      },
      (error) => {
        throw error;
      },
    );
    await vi.waitFor(() => expect(seen).toEqual([[]]));
    await sessions.create(buildSession({ id: asSessionId('s9') }));
    await second;
    stop();
    expect(seen).toEqual([[], ['s9']]);
  });

  it('passes query failures to onError as StorageErrors', async () => {
    const db = await openTestDb();
    const onError = vi.fn();
    const stop = observe(
      () => db.sessions.get('x').then(() => Promise.reject(new Error('broken query'))),
      vi.fn(),
      onError,
    );
    await vi.waitFor(() => expect(onError).toHaveBeenCalledOnce());
    stop();
    expect(onError.mock.calls[0]?.[0]).toMatchObject({ name: 'StorageError', code: 'unknown' });
  });
});

describe('persistence and quota', () => {
  it('asks for persistence only when the data is not persisted yet', async () => {
    const persist = vi.fn(() => Promise.resolve(true));
    expect(await requestPersistence({ persisted: () => Promise.resolve(false), persist })).toBe(
      true,
    );
    expect(await requestPersistence({ persisted: () => Promise.resolve(true), persist })).toBe(
      true,
    );
    expect(persist).toHaveBeenCalledOnce();
  });

  it('reports usage against quota and warns from 80% full', async () => {
    const storage = (usage: number) => ({
      estimate: () => Promise.resolve({ usage, quota: 1000 }),
      persisted: () => Promise.resolve(false),
    });
    expect(await estimateStorage(storage(799))).toEqual({
      persisted: false,
      usage: 799,
      quota: 1000,
      ratio: 0.799,
      isNearlyFull: false,
    });
    expect(await estimateStorage(storage(800))).toMatchObject({ ratio: 0.8, isNearlyFull: true });
    expect(
      await estimateStorage({
        estimate: () => Promise.resolve({}),
        persisted: () => Promise.resolve(true),
      }),
    ).toEqual({
      persisted: true,
      usage: 0,
      quota: 0,
      ratio: 0,
      isNearlyFull: false,
    });
  });
});
