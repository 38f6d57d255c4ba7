/**
 * The contract every chat store keeps, whether it writes to IndexedDB or keeps a temporary chat
 * in memory: the agent loop and the page read both through the same ports and rely on this.
 */
import { describe, expect, it } from 'vitest';
import { asMessageId, asProviderId, asSessionId, type ChatSummary } from '../../../src/core/model';
import type { ChatStores, Clock, Ids } from '../../../src/core/ports';
import { StorageError } from '../../../src/storage/errors';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  createSequentialIds,
} from './storage-fixtures';

/** Opens an empty set of chat stores with this clock and these ids. */
export type OpenChatStores = (clock: Clock, ids?: Ids) => Promise<ChatStores>;

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

const ids = (chain: ReadonlyArray<{ id: string }> | null) =>
  chain?.map((message) => message.id) ?? null;

export function describeChatStoresContract(name: string, open: OpenChatStores): void {
  /** Stores holding one empty session, s1. */
  async function openWithSession(): Promise<ChatStores> {
    const stores = await open(createFrozenClock());
    await stores.sessions.create(buildSession());
    return stores;
  }

  /** q1 → a1 → q2 → a2, and a second answer a2b to q2 (the current leaf). */
  async function openChat(): Promise<ChatStores['messages']> {
    const { messages } = await openWithSession();
    await messages.put(buildUserMessage('q1', null));
    await messages.put(buildAssistantMessage('a1', 'q1'));
    await messages.put(buildUserMessage('q2', 'a1'));
    await messages.put(buildAssistantMessage('a2', 'q2'));
    await messages.put(buildAssistantMessage('a2b', 'q2'));
    return messages;
  }

  describe(`${name}: sessions`, () => {
    it('creates, lists newest first, and reads sessions back', async () => {
      const { sessions } = await open(createFrozenClock());
      await sessions.create(buildSession({ id: asSessionId('old'), updatedAt: 1 }));
      await sessions.create(buildSession({ id: asSessionId('new'), updatedAt: 2 }));
      expect((await sessions.list()).map((s) => s.id)).toEqual(['new', 'old']);
      expect(await sessions.get(asSessionId('old'))).toEqual(
        buildSession({ id: asSessionId('old'), updatedAt: 1 }),
      );
      expect(await sessions.get(asSessionId('missing'))).toBeUndefined();
    });

    it('bumps the version and updatedAt on every update', async () => {
      const clock = createFrozenClock(1000);
      const { sessions } = await open(clock);
      await sessions.create(buildSession());
      const first = await sessions.update(asSessionId('s1'), { title: 'Renamed' });
      clock.advance(5);
      const second = await sessions.update(asSessionId('s1'), { isPinned: true });
      expect(first).toMatchObject({ title: 'Renamed', version: 1, updatedAt: 1000 });
      expect(second).toMatchObject({
        title: 'Renamed',
        isPinned: true,
        version: 2,
        updatedAt: 1005,
      });
      expect(await sessions.get(asSessionId('s1'))).toEqual(second);
    });

    it('reports an update of a missing session as not_found', async () => {
      const { sessions } = await open(createFrozenClock());
      await expect(sessions.update(asSessionId('nope'), { title: 'x' })).rejects.toMatchObject({
        code: 'not_found',
      });
    });

    it('refuses a session that does not match the schema', async () => {
      const { sessions } = await open(createFrozenClock());
      await expect(sessions.create(buildSession({ version: -1 }))).rejects.toBeInstanceOf(
        StorageError,
      );
      expect(await sessions.list()).toEqual([]);
    });

    it('deletes a session together with its messages and usage records', async () => {
      const { sessions, messages, usage } = await open(createFrozenClock());
      await sessions.create(buildSession());
      await sessions.create(buildSession({ id: asSessionId('s2') }));
      await messages.put(buildUserMessage('u1', null));
      await messages.put(buildUserMessage('other', null, { sessionId: asSessionId('s2') }));
      const model = { providerId: asProviderId('openai'), modelId: 'gpt-x' };
      await usage.record({
        sessionId: asSessionId('s1'),
        messageId: asMessageId('u1'),
        model,
        usage: { inputTokens: 1, outputTokens: 2 },
      });
      await sessions.delete(asSessionId('s1'));
      expect(await sessions.get(asSessionId('s1'))).toBeUndefined();
      expect(await messages.get(asMessageId('u1'))).toBeUndefined();
      expect(await usage.listBySession(asSessionId('s1'))).toEqual([]);
      expect(await messages.get(asMessageId('other'))).toBeDefined();
    });

    it('gives a copy: changing what it returned changes nothing stored', async () => {
      const { sessions } = await open(createFrozenClock());
      await sessions.create(buildSession());
      const read = await sessions.get(asSessionId('s1'));
      if (read) read.title = 'changed behind its back';
      expect((await sessions.get(asSessionId('s1')))?.title).toBe('A chat');
    });
  });

  describe(`${name}: the message tree`, () => {
    it('makes each newly saved message the current leaf and bumps the session version', async () => {
      const { sessions, messages } = await openWithSession();
      await messages.put(buildUserMessage('u1', null));
      await messages.put(buildAssistantMessage('a1', 'u1', { status: 'streaming' }));
      expect(await sessions.get(asSessionId('s1'))).toMatchObject({
        currentLeafId: 'a1',
        version: 2,
      });
      await messages.put(buildAssistantMessage('a1', 'u1', { status: 'complete' }));
      expect(await sessions.get(asSessionId('s1'))).toMatchObject({
        currentLeafId: 'a1',
        version: 3,
      });
      expect((await messages.loadVisibleChain(asSessionId('s1'))).map((m) => m.id)).toEqual([
        'u1',
        'a1',
      ]);
    });

    it('refuses a message for a session that does not exist', async () => {
      const { messages } = await openWithSession();
      await expect(
        messages.put(buildUserMessage('u1', null, { sessionId: asSessionId('ghost') })),
      ).rejects.toMatchObject({ code: 'not_found' });
      expect(await messages.get(asMessageId('u1'))).toBeUndefined();
    });

    it('turns an edited user message into a sibling that becomes the visible branch', async () => {
      const { messages } = await openWithSession();
      await messages.put(buildUserMessage('u1', null));
      await messages.put(buildAssistantMessage('a1', 'u1'));
      await messages.put(buildUserMessage('u2', 'a1', { createdAt: 30 }));
      await messages.put(buildAssistantMessage('a2', 'u2', { createdAt: 40 }));
      await messages.put(
        buildUserMessage('u2-edit', 'a1', { text: 'better question', createdAt: 50 }),
      );
      await messages.put(buildAssistantMessage('a2-edit', 'u2-edit', { createdAt: 60 }));

      expect((await messages.loadVisibleChain(asSessionId('s1'))).map((m) => m.id)).toEqual([
        'u1',
        'a1',
        'u2-edit',
        'a2-edit',
      ]);
      expect(await messages.siblings(asMessageId('u2-edit'))).toEqual({
        index: 1,
        count: 2,
        ids: ['u2', 'u2-edit'],
      });
      expect(await messages.siblings(asMessageId('u1'))).toEqual({
        index: 0,
        count: 1,
        ids: ['u1'],
      });
      expect(
        (await messages.children(asSessionId('s1'), asMessageId('a1'))).map((m) => m.id),
      ).toEqual(['u2', 'u2-edit']);
      expect((await messages.children(asSessionId('s1'), null)).map((m) => m.id)).toEqual(['u1']);
    });

    it('names the parents with more than one child, the root as null, in this session only', async () => {
      const { sessions, messages } = await openWithSession();
      await sessions.create(buildSession({ id: asSessionId('s2') }));
      await messages.put(buildUserMessage('u1', null));
      await messages.put(buildAssistantMessage('a1', 'u1', { createdAt: 20 }));
      await messages.put(buildUserMessage('u2', 'a1', { createdAt: 30 }));
      await messages.put(buildAssistantMessage('a2', 'u2', { createdAt: 40 }));
      expect(await messages.forkedParents(asSessionId('s1'))).toEqual([]);
      // A second first question, and a regenerated answer to u2.
      await messages.put(buildUserMessage('u1b', null, { createdAt: 50 }));
      await messages.put(buildAssistantMessage('a2b', 'u2', { createdAt: 60 }));
      // Another session's fork is not this one's.
      await messages.put(buildUserMessage('x1', null, { sessionId: asSessionId('s2') }));
      await messages.put(buildAssistantMessage('x2', 'x1', { sessionId: asSessionId('s2') }));
      await messages.put(buildAssistantMessage('x3', 'x1', { sessionId: asSessionId('s2') }));
      expect([...(await messages.forkedParents(asSessionId('s1')))].sort()).toEqual(
        [null, 'u2'].sort(),
      );
      expect(await messages.forkedParents(asSessionId('s2'))).toEqual(['x1']);
      await messages.deleteBranch(asMessageId('a2b'));
      expect(await messages.forkedParents(asSessionId('s1'))).toEqual([null]);
    });

    it('switches to a branch by following the newest child down to a leaf', async () => {
      const { sessions, messages } = await openWithSession();
      await messages.put(buildUserMessage('u1', null));
      await messages.put(buildAssistantMessage('a1', 'u1', { createdAt: 20 }));
      await messages.put(buildUserMessage('u2', 'a1', { createdAt: 30 }));
      // Two regenerations of the answer to u1: a1 (with a follow-up), then a1b, then a1c.
      await messages.put(buildAssistantMessage('a1b', 'u1', { createdAt: 40 }));
      await messages.put(buildAssistantMessage('a1c', 'u1', { createdAt: 50 }));
      // Under a1, a newer follow-up than u2 with its own answer.
      await messages.put(buildUserMessage('u2b', 'a1', { createdAt: 60 }));
      await messages.put(buildAssistantMessage('a2b', 'u2b', { createdAt: 70 }));
      await messages.switchBranch(asMessageId('a1c'));
      const before = await sessions.get(asSessionId('s1'));

      const leaf = await messages.switchBranch(asMessageId('a1'));

      expect(leaf).toBe('a2b');
      const after = await sessions.get(asSessionId('s1'));
      expect(after?.currentLeafId).toBe('a2b');
      expect(after?.version).toBe((before?.version ?? 0) + 1);
      expect((await messages.loadVisibleChain(asSessionId('s1'))).map((m) => m.id)).toEqual([
        'u1',
        'a1',
        'u2b',
        'a2b',
      ]);
      expect(await messages.siblings(asMessageId('a1'))).toEqual({
        index: 0,
        count: 3,
        ids: ['a1', 'a1b', 'a1c'],
      });
      expect(await messages.switchBranch(asMessageId('a1c'))).toBe('a1c');
    });

    it('lists the messages left streaming by a closed tab', async () => {
      const { messages } = await openWithSession();
      await messages.put(buildUserMessage('u1', null));
      await messages.put(buildAssistantMessage('a1', 'u1', { status: 'streaming' }));
      await messages.put(buildAssistantMessage('a2', 'u1', { status: 'stopped' }));
      expect((await messages.listStreaming()).map((m) => m.id)).toEqual(['a1']);
    });

    it('deletes a message with all its descendants and moves the leaf to the newest remaining branch', async () => {
      const { sessions, messages } = await openWithSession();
      await messages.put(buildUserMessage('u1', null, { createdAt: 10 }));
      await messages.put(buildAssistantMessage('a1', 'u1', { createdAt: 20 }));
      await messages.put(buildAssistantMessage('a1b', 'u1', { createdAt: 30 }));
      await messages.put(buildUserMessage('u2', 'a1b', { createdAt: 40 }));
      await messages.put(buildAssistantMessage('a2', 'u2', { createdAt: 50 }));
      // An older follow-up under a1, so the leaf has somewhere deeper to land than a1 itself.
      await messages.put(buildUserMessage('u2a', 'a1', { createdAt: 35 }));
      await messages.switchBranch(asMessageId('a2'));
      const before = await sessions.get(asSessionId('s1'));

      const leaf = await messages.deleteBranch(asMessageId('a1b'));

      expect(leaf).toBe('u2a');
      for (const id of ['a1b', 'u2', 'a2'])
        expect(await messages.get(asMessageId(id))).toBeUndefined();
      const after = await sessions.get(asSessionId('s1'));
      expect(after).toMatchObject({ currentLeafId: 'u2a', version: (before?.version ?? 0) + 1 });
      expect((await messages.loadVisibleChain(asSessionId('s1'))).map((m) => m.id)).toEqual([
        'u1',
        'a1',
        'u2a',
      ]);
    });

    it('moves the leaf to the parent itself when the deleted answer had no siblings', async () => {
      const { sessions, messages } = await openWithSession();
      await messages.put(buildUserMessage('u1', null, { createdAt: 10 }));
      await messages.put(buildAssistantMessage('a1', 'u1', { createdAt: 20 }));

      expect(await messages.deleteBranch(asMessageId('a1'))).toBe('u1');
      expect((await sessions.get(asSessionId('s1')))?.currentLeafId).toBe('u1');
    });

    it('empties the session when the only first question is deleted', async () => {
      const { sessions, messages } = await openWithSession();
      await messages.put(buildUserMessage('u1', null, { createdAt: 10 }));
      await messages.put(buildAssistantMessage('a1', 'u1', { createdAt: 20 }));

      expect(await messages.deleteBranch(asMessageId('u1'))).toBeNull();
      expect((await sessions.get(asSessionId('s1')))?.currentLeafId).toBeNull();
      expect(await messages.loadVisibleChain(asSessionId('s1'))).toEqual([]);
      expect(await messages.children(asSessionId('s1'), null)).toEqual([]);
    });

    it('keeps the visible branch when deleting a branch the user is not looking at', async () => {
      const { sessions, messages } = await openWithSession();
      await messages.put(buildUserMessage('u1', null, { createdAt: 10 }));
      await messages.put(buildAssistantMessage('a1', 'u1', { createdAt: 20 }));
      await messages.put(buildAssistantMessage('a1b', 'u1', { createdAt: 30 }));

      expect(await messages.deleteBranch(asMessageId('a1'))).toBe('a1b');
      expect((await sessions.get(asSessionId('s1')))?.currentLeafId).toBe('a1b');
      expect(await messages.siblings(asMessageId('a1b'))).toEqual({
        index: 0,
        count: 1,
        ids: ['a1b'],
      });
    });

    it('refuses to delete a message that does not exist', async () => {
      const { messages } = await openWithSession();
      await expect(messages.deleteBranch(asMessageId('ghost'))).rejects.toMatchObject({
        code: 'not_found',
      });
    });

    it('refuses to move a message to another parent', async () => {
      const { messages } = await openWithSession();
      await messages.put(buildUserMessage('u1', null));
      await messages.put(buildAssistantMessage('a1', 'u1'));
      await messages.put(buildUserMessage('u2', null, { createdAt: 30 }));
      await expect(messages.put(buildAssistantMessage('a1', 'u2'))).rejects.toMatchObject({
        code: 'invalid_data',
      });
      expect((await messages.get(asMessageId('a1')))?.parentId).toBe('u1');
    });

    it('refuses a message that does not match the schema and keeps nothing of it', async () => {
      const { messages } = await openWithSession();
      await expect(
        messages.put({ ...buildUserMessage('u1', null), textTokenCount: -1 }),
      ).rejects.toBeInstanceOf(StorageError);
      expect(await messages.get(asMessageId('u1'))).toBeUndefined();
    });
  });

  describe(`${name}: the end of a chain below a message already shown`, () => {
    it('reads the messages below the ancestor, oldest first', async () => {
      const messages = await openChat();
      expect(ids(await messages.loadChainBelow(asMessageId('a2b'), asMessageId('a1'), 2))).toEqual([
        'q2',
        'a2b',
      ]);
      expect(ids(await messages.loadChainBelow(asMessageId('a2b'), asMessageId('q2'), 2))).toEqual([
        'a2b',
      ]);
      expect(ids(await messages.loadChainBelow(asMessageId('a2b'), asMessageId('a2b'), 2))).toEqual(
        [],
      );
    });

    it('reads from the root when there is no ancestor, the whole chain being short enough', async () => {
      const messages = await openChat();
      expect(ids(await messages.loadChainBelow(asMessageId('a1'), null, 2))).toEqual(['q1', 'a1']);
      expect(await messages.loadChainBelow(asMessageId('a2b'), null, 2)).toBeNull();
    });

    it('answers null when the ancestor is on another branch or further up than allowed', async () => {
      const messages = await openChat();
      expect(await messages.loadChainBelow(asMessageId('a2b'), asMessageId('a2'), 4)).toBeNull();
      expect(await messages.loadChainBelow(asMessageId('a2b'), asMessageId('q1'), 2)).toBeNull();
      expect(ids(await messages.loadChainBelow(asMessageId('a2b'), asMessageId('q1'), 3))).toEqual([
        'a1',
        'q2',
        'a2b',
      ]);
    });

    it('says which message is missing when the chain is broken', async () => {
      const messages = await openChat();
      await messages.deleteBranch(asMessageId('a1'));
      await expect(
        messages.loadChainBelow(asMessageId('q2'), asMessageId('q1'), 2),
      ).rejects.toThrow(/no longer exists/);
      await expect(messages.loadChain(asMessageId('q2'))).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });

  /**
   * Twelve turns, with the fourth question edited (a fork: the visible chain leaves the first line
   * there) and the tenth answer regenerated (a second fork).
   */
  async function openForkedChat(): Promise<ChatStores['messages']> {
    const { messages } = await openWithSession();
    let parent: string | null = null;
    for (let turn = 0; turn < 12; turn++) {
      if (turn === 3) {
        await messages.put(buildUserMessage('q3-old', parent));
        await messages.put(buildAssistantMessage('a3-old', 'q3-old'));
      }
      await messages.put(buildUserMessage(`q${turn}`, parent));
      if (turn === 9) await messages.put(buildAssistantMessage('a9-old', `q${turn}`));
      await messages.put(buildAssistantMessage(`a${turn}`, `q${turn}`));
      parent = `a${turn}`;
    }
    return messages;
  }

  describe(`${name}: the end of a chain, for a long chat’s first screen`, () => {
    it('reads the last messages of the chain, oldest first, across its forks', async () => {
      const messages = await openForkedChat();
      const leaf = asMessageId('a11');
      const whole = ids(await messages.loadChain(leaf)) ?? [];
      expect(whole).toHaveLength(24);
      expect(whole).not.toContain('q3-old');
      expect(whole).not.toContain('a9-old');
      for (const length of [1, 2, 3, 5, 6, 17, 18, 19, 23]) {
        const end = await messages.loadChainEnd(leaf, length);
        expect(ids(end.messages)).toEqual(whole.slice(-length));
        expect(end.isComplete).toBe(false);
      }
    });

    it('says the chain is complete once the end it read reaches the root', async () => {
      const messages = await openForkedChat();
      const leaf = asMessageId('a11');
      const whole = ids(await messages.loadChain(leaf));
      for (const length of [24, 25, 1000]) {
        const end = await messages.loadChainEnd(leaf, length);
        expect(ids(end.messages)).toEqual(whole);
        expect(end.isComplete).toBe(true);
      }
    });

    it('continues from the message above the first one read until the root', async () => {
      const messages = await openForkedChat();
      const leaf = asMessageId('a11');
      const whole = ids(await messages.loadChain(leaf));
      let shown = await messages.loadChainEnd(leaf, 5);
      let chain = shown.messages;
      while (!shown.isComplete) {
        shown = await messages.loadChainEnd(chain[0]?.parentId ?? asMessageId('none'), 7);
        chain = [...shown.messages, ...chain];
      }
      expect(ids(chain)).toEqual(whole);
    });

    it('gives copies: changing what it returned changes nothing stored', async () => {
      const messages = await openForkedChat();
      const end = await messages.loadChainEnd(asMessageId('a11'), 2);
      const [question] = end.messages;
      if (question?.role !== 'user') throw new Error('expected the last question first');
      question.text = 'changed by the caller';
      const again = await messages.get(asMessageId('q11'));
      expect(again?.role === 'user' ? again.text : null).not.toBe('changed by the caller');
    });

    it('says which message is missing when the chain is broken', async () => {
      const messages = await openForkedChat();
      await expect(messages.loadChainEnd(asMessageId('nowhere'), 3)).rejects.toThrow(
        /nowhere.*no longer exists/,
      );
    });
  });

  describe(`${name}: summaries and usage`, () => {
    it('adds, lists per session oldest first, marks undone, and goes with its chat when the chat is deleted', async () => {
      const { sessions, summaries: store } = await open(createFrozenClock());
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
      expect(
        (await store.listBySession('other' as ChatSummary['sessionId'])).map((s) => s.id),
      ).toEqual(['c']);
    });

    it('records usage with an id and time from the ports and lists it by session and since a time', async () => {
      const clock = createFrozenClock(100);
      const { usage } = await open(clock, createSequentialIds('u'));
      const model = { providerId: asProviderId('openai'), modelId: 'gpt-x' };
      const first = await usage.record({
        sessionId: asSessionId('s1'),
        messageId: asMessageId('a1'),
        model,
        usage: { inputTokens: 10, outputTokens: 5 },
      });
      clock.advance(50);
      await usage.record({
        sessionId: asSessionId('s2'),
        messageId: asMessageId('a2'),
        model,
        usage: { inputTokens: 1, outputTokens: 1 },
      });
      expect(first).toMatchObject({ id: 'u-1', createdAt: 100 });
      expect((await usage.listBySession(asSessionId('s1'))).map((r) => r.id)).toEqual(['u-1']);
      expect((await usage.listSince(120)).map((r) => r.id)).toEqual(['u-2']);
    });
  });
}
