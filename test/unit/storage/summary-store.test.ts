import { Dexie } from 'dexie';
import { describe, expect, it } from 'vitest';
import { asMessageId, asProviderId, type ChatSummary } from '../../../src/core/model';
import { CURRENT_SCHEMA_VERSION, openCarrelDb, SCHEMA_V4 } from '../../../src/storage/db';
import { createSessionStore } from '../../../src/storage/session.store';
import { createSummaryStore } from '../../../src/storage/summary.store';
import { buildSession, createFrozenClock, createTestIndexedDb } from './storage-fixtures';

function buildStoredSummary(sessionId: string, overrides: Partial<ChatSummary> = {}): ChatSummary {
  return {
    id: 'summary-1',
    sessionId: sessionId as ChatSummary['sessionId'],
    lastMessageId: asMessageId('m2'),
    coveredIds: [asMessageId('m1'), asMessageId('m2')],
    previousSummaryId: null,
    text: 'They talked about Paris.',
    tokenCount: 6,
    model: { providerId: asProviderId('p'), modelId: 'small' },
    createdAt: 10,
    ...overrides,
  };
}

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

  it('adds, lists per session oldest first, marks undone, and goes with its chat when the chat is deleted', async () => {
    const db = await openCarrelDb('summaries', { dexie: createTestIndexedDb() });
    const clock = createFrozenClock();
    const sessions = createSessionStore(db, clock);
    const store = createSummaryStore(db);
    const session = buildSession();
    await sessions.create(session);
    await store.add(buildStoredSummary(session.id, { id: 'b', createdAt: 20 }));
    await store.add(buildStoredSummary(session.id, { id: 'a', createdAt: 10 }));
    await store.add(buildStoredSummary('other', { id: 'c' }));
    expect((await store.listBySession(session.id)).map((s) => s.id)).toEqual(['a', 'b']);
    await store.markUndone('b', 30);
    expect((await store.listBySession(session.id)).find((s) => s.id === 'b')?.undoneAt).toBe(30);
    await expect(store.add({ ...buildStoredSummary(session.id), text: '' })).rejects.toThrow();
    await sessions.delete(session.id);
    expect(await store.listBySession(session.id)).toEqual([]);
    expect((await store.listBySession('other' as ChatSummary['sessionId'])).map((s) => s.id)).toEqual(['c']);
    db.close();
  });
});
