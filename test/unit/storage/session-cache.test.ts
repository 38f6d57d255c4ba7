import { describe, expect, it } from 'vitest';
import { asMessageId, asSessionId } from '../../../src/core/model';
import { createMessageStore } from '../../../src/storage/message.store';
import { createSessionCache } from '../../../src/storage/session-cache';
import { createSessionStore } from '../../../src/storage/session.store';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  openTestDb,
} from './storage-fixtures';

async function openCachedSession(maxEntries?: number) {
  const db = await openTestDb();
  const clock = createFrozenClock();
  const sessions = createSessionStore(db, clock);
  const messages = createMessageStore(db, clock);
  await sessions.create(buildSession());
  await messages.put(buildUserMessage('u1', null));
  await messages.put(buildAssistantMessage('a1', 'u1'));
  const cache = createSessionCache(
    { getSession: (id) => sessions.get(id), loadChain: (id) => messages.loadChain(id) },
    maxEntries,
  );
  return { db, sessions, messages, cache };
}

describe('session cache', () => {
  it('serves a repeated read from memory', async () => {
    const { cache } = await openCachedSession();
    const first = await cache.loadVisibleChain(asSessionId('s1'));
    const second = await cache.loadVisibleChain(asSessionId('s1'));
    expect(second).toBe(first);
    expect(second.map((m) => m.id)).toEqual(['u1', 'a1']);
    expect(cache.stats()).toEqual({ hits: 1, misses: 1, size: 1 });
  });

  it('serves a primed chain for the version it was written at, and only that version', async () => {
    const { sessions, messages, cache } = await openCachedSession();
    await messages.put(buildUserMessage('u2', 'a1'));
    const session = await sessions.get(asSessionId('s1'));
    const chain = await messages.loadChain(asMessageId('u2'));
    cache.prime(session!, chain);
    expect((await cache.loadVisibleChain(asSessionId('s1'))).map((m) => m.id)).toEqual(['u1', 'a1', 'u2']);
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 0 });
    await messages.put(buildAssistantMessage('a2', 'u2'));
    expect((await cache.loadVisibleChain(asSessionId('s1'))).map((m) => m.id)).toEqual(['u1', 'a1', 'u2', 'a2']);
    expect(cache.stats()).toMatchObject({ hits: 1, misses: 1 });
  });

  it('ignores a primed chain that does not end at the session leaf', async () => {
    const { sessions, cache } = await openCachedSession();
    const session = await sessions.get(asSessionId('s1'));
    cache.prime(session!, []);
    await cache.loadVisibleChain(asSessionId('s1'));
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 1 });
  });

  it('never serves a chain older than an edit made through the stores', async () => {
    const { messages, cache } = await openCachedSession();
    await cache.loadVisibleChain(asSessionId('s1'));
    await messages.put(
      buildAssistantMessage('a1', 'u1', {
        steps: [{ text: 'edited', textTokenCount: 1, toolCalls: [] }],
      }),
    );
    const chain = await cache.loadVisibleChain(asSessionId('s1'));
    expect(chain[1]).toMatchObject({ steps: [{ text: 'edited' }] });
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 2 });
  });

  it('follows a branch switch to the new leaf', async () => {
    const { messages, cache } = await openCachedSession();
    await messages.put(buildAssistantMessage('a1b', 'u1', { createdAt: 30 }));
    expect((await cache.loadVisibleChain(asSessionId('s1'))).map((m) => m.id)).toEqual([
      'u1',
      'a1b',
    ]);
    await messages.switchBranch(asMessageId('a1'));
    expect((await cache.loadVisibleChain(asSessionId('s1'))).map((m) => m.id)).toEqual([
      'u1',
      'a1',
    ]);
  });

  it('notices a write another tab made directly in the database', async () => {
    const { db, cache } = await openCachedSession();
    await cache.loadVisibleChain(asSessionId('s1'));
    // Another tab's stores do what ours do: change the row and bump the version together.
    await db.transaction('rw', [db.messages, db.sessions], async () => {
      await db.messages.update('u1', { text: 'from the other tab' });
      await db.sessions.update('s1', { version: 99 });
    });
    expect((await cache.loadVisibleChain(asSessionId('s1')))[0]).toMatchObject({
      text: 'from the other tab',
    });
  });

  it('evicts the least recently used session beyond its size', async () => {
    const { sessions, messages, cache } = await openCachedSession(2);
    for (const id of ['s2', 's3']) {
      await sessions.create(buildSession({ id: asSessionId(id) }));
      await messages.put(buildUserMessage(`${id}-u`, null, { sessionId: asSessionId(id) }));
    }
    await cache.loadVisibleChain(asSessionId('s1'));
    await cache.loadVisibleChain(asSessionId('s2'));
    await cache.loadVisibleChain(asSessionId('s1'));
    await cache.loadVisibleChain(asSessionId('s3'));
    expect(cache.stats()).toEqual({ hits: 1, misses: 3, size: 2 });
    await cache.loadVisibleChain(asSessionId('s1'));
    await cache.loadVisibleChain(asSessionId('s2'));
    expect(cache.stats()).toEqual({ hits: 2, misses: 4, size: 2 });
  });

  it('returns an empty chain for a deleted or empty session and forgets it', async () => {
    const { sessions, cache } = await openCachedSession();
    await cache.loadVisibleChain(asSessionId('s1'));
    await sessions.delete(asSessionId('s1'));
    expect(await cache.loadVisibleChain(asSessionId('s1'))).toEqual([]);
    expect(cache.stats().size).toBe(0);
  });
});
