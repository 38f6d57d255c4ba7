import { Dexie } from 'dexie';
import { describe, expect, it } from 'vitest';
import { CURRENT_SCHEMA_VERSION, openCarrelDb, SCHEMA_V4 } from '../../../src/storage/db';
import { createTestIndexedDb } from './storage-fixtures';

// What the summaries store does is in chat-stores.contract.ts, run on IndexedDB and in memory.
describe('summaries in storage', () => {
  it('upgrades a version 4 database with an empty summaries table and its messages untouched', async () => {
    const dexie = createTestIndexedDb();
    const old = new Dexie('upgrade-v5', dexie);
    old.version(4).stores(SCHEMA_V4);
    await old.open();
    await old.table('messages').add({ id: 'm1', sessionId: 's1', parentId: '', role: 'user', status: 'complete', text: 'hi', tokenCount: 1, createdAt: 1, updatedAt: 1, isPinned: false, isExcluded: false, lineId: 'm1', depth: 0 });
    old.close();
    const db = await openCarrelDb('upgrade-v5', { dexie });
    expect(db.verno).toBe(CURRENT_SCHEMA_VERSION);
    expect(await db.summaries.count()).toBe(0);
    expect((await db.messages.get('m1'))?.text).toBe('hi');
    db.close();
  });
});
