import { describe, expect, it } from 'vitest';
import { asMessageId, asSessionId } from '../../../src/core/model';
import { createMessageStore } from '../../../src/storage/message.store';
import {
  attachSearchIndex,
  buildSnippet,
  createSearchIndex,
  indexDatabase,
} from '../../../src/storage/search-index';
import { createSessionStore } from '../../../src/storage/session.store';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  openTestDb,
} from './storage-fixtures';

const longText =
  'We talked about many things that afternoon, from the weather to the price of coffee, and then, almost by accident, ' +
  'the conversation turned to sourdough starters and why they smell of acetone when they are hungry, which surprised everyone present.';

describe('chat search', () => {
  it('finds a message by a word deep in its text and returns a snippet around it', () => {
    const index = createSearchIndex();
    index.upsertSession(buildSession({ title: 'Kitchen notes' }));
    index.upsertMessage(buildUserMessage('u1', null, { text: longText }));
    const [hit] = index.search('acetone');
    expect(hit).toMatchObject({ sessionId: 's1', messageId: 'u1', title: 'Kitchen notes' });
    expect(hit?.snippet).toContain('smell of acetone');
    expect(hit?.snippet.startsWith('…')).toBe(true);
    expect(hit?.snippet.endsWith('…')).toBe(true);
    expect(hit?.snippet.length).toBeLessThan(longText.length);
  });

  it('matches session titles and assistant answers, with prefixes and small typos', () => {
    const index = createSearchIndex();
    index.upsertSession(buildSession({ id: asSessionId('s2'), title: 'Holiday planning' }));
    index.upsertMessage(
      buildAssistantMessage('a1', null, {
        steps: [{ text: 'Try the Dolomites in May.', textTokenCount: 6, toolCalls: [] }],
      }),
    );
    expect(index.search('holid')).toEqual([
      expect.objectContaining({ sessionId: 's2', messageId: null, snippet: 'Holiday planning' }),
    ]);
    expect(index.search('dolomtes').map((hit) => hit.messageId)).toEqual(['a1']);
    expect(index.search('   ')).toEqual([]);
  });

  it('follows edits and removals incrementally', () => {
    const index = createSearchIndex();
    index.upsertSession(buildSession());
    index.upsertMessage(buildUserMessage('u1', null, { text: 'first draft about turnips' }));
    index.upsertMessage(buildUserMessage('u1', null, { text: 'second draft about parsnips' }));
    expect(index.search('turnips')).toEqual([]);
    expect(index.search('parsnips')).toHaveLength(1);
    index.removeMessage(asMessageId('u1'));
    expect(index.search('parsnips')).toEqual([]);
    index.upsertMessage(buildUserMessage('u2', null, { text: 'carrots' }));
    index.removeSession(asSessionId('s1'));
    expect(index.search('carrots')).toEqual([]);
    expect(index.search('chat')).toEqual([]);
  });

  it('builds the index from everything stored, every branch included', async () => {
    const db = await openTestDb();
    const clock = createFrozenClock();
    await createSessionStore(db, clock).create(buildSession({ title: 'Stored chat' }));
    const messages = createMessageStore(db, clock);
    await messages.put(buildUserMessage('u1', null, { text: 'original wording' }));
    await messages.put(buildUserMessage('u1-edit', null, { text: 'edited wording' }));
    const index = createSearchIndex();
    await indexDatabase(db, index);
    expect(
      index
        .search('wording')
        .map((hit) => hit.messageId)
        .sort(),
    ).toEqual(['u1', 'u1-edit']);
    expect(index.search('stored')[0]).toMatchObject({ messageId: null, title: 'Stored chat' });
  });

  it('keeps a short text whole in its snippet', () => {
    expect(buildSnippet('short text here', ['text'])).toBe('short text here');
  });
});

describe('search kept current by the database', () => {
  it('reflects saves, edits, renames and deletions made through the stores', async () => {
    const db = await openTestDb();
    const index = createSearchIndex();
    const detach = attachSearchIndex(db, index);
    const clock = createFrozenClock();
    const sessions = createSessionStore(db, clock);
    const messages = createMessageStore(db, clock);

    await sessions.create(buildSession({ title: 'Garden' }));
    await messages.put(buildUserMessage('u1', null, { text: 'when to plant tulips' }));
    expect(index.search('tulips').map((hit) => hit.messageId)).toEqual(['u1']);

    await messages.put(buildUserMessage('u1', null, { text: 'when to plant daffodils' }));
    await sessions.update(asSessionId('s1'), { title: 'Flower beds' });
    expect(index.search('tulips')).toEqual([]);
    expect(index.search('daffodils')[0]).toMatchObject({ messageId: 'u1', title: 'Flower beds' });
    expect(index.search('garden')).toEqual([]);

    await sessions.delete(asSessionId('s1'));
    expect(index.search('daffodils')).toEqual([]);
    expect(index.search('flower')).toEqual([]);

    detach();
    await sessions.create(buildSession({ id: asSessionId('s2'), title: 'Unseen' }));
    expect(index.search('unseen')).toEqual([]);
  });

  it('leaves out a write whose transaction was rolled back', async () => {
    const db = await openTestDb();
    const index = createSearchIndex();
    attachSearchIndex(db, index);
    await expect(
      db.transaction('rw', db.sessions, async () => {
        await db.sessions.add(buildSession({ title: 'Phantom' }));
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(index.search('phantom')).toEqual([]);
  });
});
