import { Dexie } from 'dexie';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/core/model';
import { createStores } from '../../../../src/storage';
import {
  createChangeTracking,
  DEVICE_KEY,
  type SyncRecordRow,
} from '../../../../src/storage/sync/change-tracking';
import { createSyncStore } from '../../../../src/storage/sync/sync.store';
import {
  buildSession,
  createFrozenClock,
  createSequentialIds,
  openTestDb,
} from '../storage-fixtures';

/** A database on a device where sync has been set up, so its writes are tracked. */
async function setUp() {
  const clock = createFrozenClock();
  const db = await openTestDb({ now: () => clock.now() });
  const stores = createStores(db, clock, createSequentialIds());
  const sync = createSyncStore(db);
  await sync.deviceId();
  return { db, clock, stores, sync };
}

function buildUserMessage(id: string, sessionId: string) {
  return {
    id: id as never,
    sessionId: asSessionId(sessionId),
    parentId: null,
    role: 'user' as const,
    text: 'hello',
    textTokenCount: 1,
    attachments: [],
    createdAt: 1,
    updatedAt: 1,
    isPinned: false,
    isExcluded: false,
  };
}

describe('before sync is set up on a device', () => {
  it('records nothing, then records every row once sync starts, and tracks from then on', async () => {
    const clock = createFrozenClock();
    const db = await openTestDb({ now: () => clock.now() });
    const stores = createStores(db, clock, createSequentialIds());
    const sync = createSyncStore(db);
    await stores.sessions.create(buildSession({ id: asSessionId('s1'), title: 'Plans' }));
    await stores.messages.put(buildUserMessage('m1', 's1'));
    await stores.settings.set('theme', 'dark');
    await stores.sessions.create(buildSession({ id: asSessionId('gone') }));
    await stores.sessions.delete(asSessionId('gone'));
    expect(await db.syncRecords.count()).toBe(0);
    expect(await db.syncState.count()).toBe(0);

    // Setting sync up (the engine resets the records when it connects) records what is there.
    await sync.resetRecords();
    const device = await sync.deviceId();
    const pending = await sync.listPending(10);
    expect(pending.map((record) => record.key).sort()).toEqual([
      'messages/m1',
      'sessions/s1',
      'settings/theme',
    ]);
    expect(pending.every((record) => record.device === device && /^1-/.test(record.rev))).toBe(
      true,
    );
    expect((await db.syncRecords.get('sessions/s1'))?.stamps).toHaveProperty('title');

    clock.advance(1000);
    await stores.sessions.update(asSessionId('s1'), { title: 'Renamed' });
    expect((await db.syncRecords.get('sessions/s1'))?.rev).toMatch(/^2-/);
    // Starting again changes nothing: the device keeps its id and its records.
    expect(await sync.deviceId()).toBe(device);
    expect((await db.syncRecords.get('sessions/s1'))?.rev).toMatch(/^2-/);
  });
});

describe('change tracking', () => {
  it('records a new session as pending, with a first revision and a stamp per field', async () => {
    const { db, stores } = await setUp();
    await stores.sessions.create(buildSession({ id: asSessionId('s1'), title: 'Plans' }));
    const record = await db.syncRecords.get('sessions/s1');
    expect(record?.rev).toMatch(/^1-[0-9a-f]{32}$/);
    expect(record?.pending).toBe(1);
    expect(record?.isDeleted).toBe(false);
    expect(Object.keys(record?.stamps ?? {})).toEqual(
      expect.arrayContaining(['title', '_deleted']),
    );
    // The cache counter never travels.
    expect(record?.stamps).not.toHaveProperty('version');
  });

  it('bumps the revision and stamps only the changed field on an edit', async () => {
    const { db, stores, clock } = await setUp();
    await stores.sessions.create(buildSession({ id: asSessionId('s1') }));
    const first = await db.syncRecords.get('sessions/s1');
    clock.advance(1000);
    await stores.sessions.update(asSessionId('s1'), { title: 'Renamed' });
    const second = await db.syncRecords.get('sessions/s1');
    expect(second?.rev).toMatch(/^2-/);
    expect(second?.ancestors).toEqual([first?.rev]);
    expect(second?.stamps.title).not.toBe(first?.stamps.title);
    expect(second?.stamps.isPinned).toBe(first?.stamps.isPinned);
  });

  it('leaves a tombstone for every row a session deletion removes', async () => {
    const { db, stores, sync } = await setUp();
    await stores.sessions.create(buildSession({ id: asSessionId('s1') }));
    await stores.messages.put(buildUserMessage('m1', 's1'));
    await stores.sessions.delete(asSessionId('s1'));
    expect((await db.syncRecords.get('sessions/s1'))?.isDeleted).toBe(true);
    expect((await db.syncRecords.get('messages/m1'))?.isDeleted).toBe(true);
    const pending = await sync.listPending(10);
    expect(pending.map((record) => record.key).sort()).toEqual(['messages/m1', 'sessions/s1']);
    expect(
      pending.every((record) => record.isDeleted && Object.keys(record.body).length === 0),
    ).toBe(true);
  });

  it('does not create a revision for a write that changes no synced field', async () => {
    const { db, stores } = await setUp();
    await stores.settings.set('theme', 'dark');
    const first = await db.syncRecords.get('settings/theme');
    const stored = await db.settings.get('theme');
    if (stored === undefined) throw new Error('The setting was not stored.');
    await db.settings.put({ ...stored });
    expect((await db.syncRecords.get('settings/theme'))?.rev).toBe(first?.rev);
  });

  it('clears the pending flag only for the revision the server got', async () => {
    const { db, stores, sync } = await setUp();
    await stores.settings.set('theme', 'dark');
    const pushed = await db.syncRecords.get('settings/theme');
    await stores.settings.set('theme', 'light');
    await sync.markPushed([{ key: 'settings/theme', rev: pushed?.rev ?? '', docId: 'r1' }]);
    expect((await db.syncRecords.get('settings/theme'))?.pending).toBe(1);
    const latest = await db.syncRecords.get('settings/theme');
    await sync.markPushed([{ key: 'settings/theme', rev: latest?.rev ?? '', docId: 'r1' }]);
    expect(await sync.countPending()).toBe(0);
  });
});

/**
 * A database with a synced table name and a unique index, so a put can fail on one key while
 * its neighbours are written (the app's synced tables have no unique index).
 */
async function openClashingDb() {
  const db = new Dexie('clashes', { indexedDB: new IDBFactory(), IDBKeyRange });
  db.version(1).stores({ prompts: 'id, &name', syncRecords: 'key, pending', syncState: 'key' });
  db.use(createChangeTracking(() => 1_000));
  await db.open();
  // Sync is set up on this device: tracking has started.
  await db.table('syncState').put({ key: DEVICE_KEY, value: 'device-1' });
  const prompts = db.table<{ id: string; name: string; text: string }, string>('prompts');
  const records = db.table<SyncRecordRow, string>('syncRecords');
  return { db, prompts, records };
}

describe('change tracking when a write fails', () => {
  it('records the puts that were written and leaves the failed one as it was', async () => {
    const { db, prompts, records } = await openClashingDb();
    await prompts.bulkPut([
      { id: 'p1', name: 'one', text: 'a' },
      { id: 'p2', name: 'two', text: 'b' },
    ]);
    const before = await records.get('prompts/p2');
    await db.transaction('rw', prompts, async () => {
      // p2 takes p1's name: that put fails, the other two succeed, the transaction goes on.
      await prompts
        .bulkPut([
          { id: 'p1', name: 'one', text: 'changed' },
          { id: 'p2', name: 'one', text: 'clash' },
          { id: 'p3', name: 'three', text: 'c' },
        ])
        .catch((error: unknown) => {
          expect((error as Error).name).toBe('BulkError');
        });
    });
    expect(await prompts.get('p2')).toEqual({ id: 'p2', name: 'two', text: 'b' });
    expect(await records.get('prompts/p2')).toEqual(before);
    expect((await records.get('prompts/p1'))?.rev).toMatch(/^2-/);
    expect((await records.get('prompts/p3'))?.rev).toMatch(/^1-/);
  });

  it('leaves no record for a new row whose put failed', async () => {
    const { db, prompts, records } = await openClashingDb();
    await prompts.put({ id: 'p1', name: 'one', text: 'a' });
    await db.transaction('rw', prompts, async () => {
      await prompts.put({ id: 'p2', name: 'one', text: 'clash' }).catch(() => undefined);
    });
    expect(await prompts.get('p2')).toBeUndefined();
    expect(await records.get('prompts/p2')).toBeUndefined();
    expect(await records.count()).toBe(1);
  });

  it('records nothing for an add whose key was taken', async () => {
    const { db, prompts, records } = await openClashingDb();
    await prompts.put({ id: 'p1', name: 'one', text: 'a' });
    const before = await records.get('prompts/p1');
    await db.transaction('rw', prompts, async () => {
      await prompts.add({ id: 'p1', name: 'other', text: 'b' }).catch(() => undefined);
    });
    expect(await records.get('prompts/p1')).toEqual(before);
  });
});

describe('upgrading to sync', () => {
  it('records every synced row a version 9 database holds as a pending change, derived and journal rows not', async () => {
    const { Dexie } = await import('dexie');
    const { SCHEMA_V9, openCarrelDb } = await import('../../../../src/storage/db');
    const { createTestIndexedDb } = await import('../storage-fixtures');
    const dexie = createTestIndexedDb();
    const old = new Dexie('upgrade-v10', dexie);
    old.version(9).stores(SCHEMA_V9);
    await old.open();
    await old.table('sessions').add(buildSession({ id: asSessionId('s1') }));
    await old.table('settings').add({ key: 'theme', value: 'dark', updatedAt: 1 });
    await old.table('fileTexts').add({ fileId: 'f1', projectId: null, text: 'Notes' });
    await old
      .table('prompts')
      .add({
        id: 'p1',
        title: 'Summarise',
        text: 'Summarise {{topic}}',
        createdAt: 1,
        updatedAt: 1,
      });
    await old
      .table('searchBlocks')
      .add({ fileId: 'f1', projectId: null, revision: 1, block: null });
    await old.table('imports').add({ id: 'i1', startedAt: 1 });
    old.close();
    const db = await openCarrelDb('upgrade-v10', { dexie });
    const records = await db.syncRecords.toArray();
    expect(records.map((record) => record.key).sort()).toEqual([
      'fileTexts/f1',
      'prompts/p1',
      'sessions/s1',
      'settings/theme',
    ]);
    expect(records.every((record) => record.pending === 1 && /^1-/.test(record.rev))).toBe(true);
    db.close();
  });
});
