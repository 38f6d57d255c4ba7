import { describe, expect, it, vi } from 'vitest';
import type { MessageId, SessionId } from '../../../../src/core/model';
import { ChatSessionState } from '../../../../src/state/chat/chat-session.svelte';
import { createTemporaryChatStores } from '../../../../src/state/chat/chat-stores';
import { createMessageStore } from '../../../../src/storage/message.store';
import { createSessionStore } from '../../../../src/storage/session.store';
import type { AgentClient } from '../../../../src/workers/agent/agent.client';
import { createMemorySessionLocks, type SessionLocks } from '../../../../src/workers/agent/session-locks';
import { scripts } from '../../../fakes/scripted-llm-client';
import { TEST_MODEL, TestAgent } from '../../../fakes/test-agent';

/**
 * The chat state over the real agent host and real stores (fake-indexeddb): what it shows after
 * a turn must be what storage holds.
 */
async function createChat(options: { afterTurn?: () => Promise<void>; locks?: SessionLocks } = {}) {
  const agent = await TestAgent.create(options.locks ? { locks: options.locks } : {});
  const messages = createMessageStore(agent.db, agent.clock);
  const sessions = createSessionStore(agent.db, agent.clock);
  const refuse = (): never => {
    throw new Error('not used in these tests');
  };
  const client: AgentClient = {
    async send(runId, request, onPackets, onConfirm) {
      const result = await agent.api.send(runId, request, onPackets, onConfirm);
      await options.afterTurn?.();
      return result;
    },
    stop: (id) => agent.api.stop(id),
    stopModel: (runId, modelIndex) => agent.api.stopModel(runId, modelIndex),
    recoverInterrupted: () => agent.api.recoverInterrupted(),
    listModels: (providerId) => agent.api.listModels(providerId),
    previewContext: (request) => agent.api.previewContext(request),
    lastRequest: (userMessageId) => agent.api.lastRequest(userMessageId),
    countTokens: (text) => agent.api.countTokens(text),
    compactNow: (sessionId) => agent.api.compactNow(sessionId),
    undoCompaction: (sessionId) => agent.api.undoCompaction(sessionId),
    listSummaries: (sessionId) => agent.api.listSummaries(sessionId),
    temporaryChat: (call, args) => agent.api.temporaryChat(call, args),
    saveTemporaryChat: (sessionId) => agent.api.saveTemporaryChat(sessionId),
    discardTemporaryChat: (sessionId) => agent.api.discardTemporaryChat(sessionId),
    testWebSearch: refuse,
    testMcpServer: refuse,
    searchProject: refuse,
    dispose: () => undefined,
  };
  let runs = 0;
  const createdSessions: SessionId[] = [];
  const chat = new ChatSessionState({
    agent: client,
    sessions,
    messages,
    newRunId: () => `run-${++runs}`,
    onSessionCreated: (sessionId) => createdSessions.push(sessionId),
    temporary: createTemporaryChatStores(client),
  });
  const say = async (text: string): Promise<void> => {
    agent.script(scripts.text(`Answer to ${text}`));
    await chat.send(text, [TEST_MODEL]);
  };
  const storedChain = async () => {
    const session = await sessions.get(chat.session?.id as SessionId);
    return session?.currentLeafId ? messages.loadChain(session.currentLeafId) : [];
  };
  return { agent, chat, messages, sessions, say, storedChain, createdSessions };
}

const texts = (chain: readonly { role: string; text?: string; steps?: Array<{ text: string }> }[]) =>
  chain.map((message) => (message.role === 'user' ? message.text : message.steps?.map((step) => step.text).join('')));

describe('the chat after a saved turn', () => {
  it('shows a new chat’s first question and answer as stored', async () => {
    const { chat, say, storedChain } = await createChat();
    await say('one');
    expect(chat.error).toBeNull();
    expect(chat.chain).toEqual(await storedChain());
    expect(texts(chat.chain)).toEqual(['one', 'Answer to one']);
    expect(chat.pendingUser).toBeNull();
    expect(chat.liveAnswers).toEqual([]);
  });

  it('adds the saved turn below the messages already shown, keeping them as they were', async () => {
    const { chat, say, storedChain } = await createChat();
    await say('one');
    await say('two');
    const before = chat.chain;
    await say('three');
    expect(chat.chain).toEqual(await storedChain());
    expect(texts(chat.chain)).toEqual(['one', 'Answer to one', 'two', 'Answer to two', 'three', 'Answer to three']);
    // The earlier rows are the same objects: the list does not render them again.
    for (const [index, message] of before.entries()) expect(chat.chain[index]).toBe(message);
  });

  it('shows a regenerated answer as the newest sibling of the old one', async () => {
    const { agent, chat, say, storedChain } = await createChat();
    await say('one');
    const firstAnswer = chat.chain[1];
    agent.script(scripts.text('Another answer'));
    await chat.regenerate(firstAnswer?.id as string, TEST_MODEL);
    expect(chat.chain).toEqual(await storedChain());
    expect(texts(chat.chain)).toEqual(['one', 'Another answer']);
    const position = await chat.siblingsOf(chat.chain[1]?.id as string);
    expect({ index: position.index, count: position.count }).toEqual({ index: 1, count: 2 });
  });

  it('shows an edited question as a new branch from the same parent', async () => {
    const { agent, chat, say, storedChain } = await createChat();
    await say('one');
    await say('two');
    agent.script(scripts.text('Answer to deux'));
    await chat.edit(chat.chain[2]?.id as string, 'deux', [TEST_MODEL]);
    expect(chat.chain).toEqual(await storedChain());
    expect(texts(chat.chain)).toEqual(['one', 'Answer to one', 'deux', 'Answer to deux']);
  });

  it('reads the whole chain when the stored branch no longer continues the one shown', async () => {
    let afterTurn: (() => Promise<void>) | undefined;
    const { agent, chat, messages, say, storedChain } = await createChat({ afterTurn: () => afterTurn?.() ?? Promise.resolve() });
    await say('one');
    const firstQuestion = chat.chain[0]?.id as MessageId;
    agent.script(scripts.text('Answer to uno'));
    await chat.edit(firstQuestion, 'uno', [TEST_MODEL]);
    // Another tab shows the first branch again once this turn is saved.
    afterTurn = async () => {
      afterTurn = undefined;
      await messages.switchBranch(firstQuestion);
    };
    await say('dos');
    expect(chat.chain).toEqual(await storedChain());
    expect(texts(chat.chain)).toEqual(['one', 'Answer to one']);
  });
});

describe('a send the worker refuses', () => {
  it('lets go of the composer only once the question is stored', async () => {
    const { agent, chat } = await createChat();
    const events: string[] = [];
    agent.script(scripts.text('Answer to one'));
    const sent = chat.send('one', [TEST_MODEL], { onStored: () => events.push(`stored while running: ${chat.isRunning}`) });
    expect(events).toEqual([]);
    await sent;
    expect(events).toEqual(['stored while running: true']);
  });

  it('keeps the composer and says why when another tab is answering this chat', async () => {
    const locks = createMemorySessionLocks();
    const { agent, chat, say, storedChain } = await createChat({ locks });
    await say('one');
    // Another tab's run holds the chat.
    const release = await locks.tryAcquire(chat.session?.id as string);
    let storedCount = 0;
    agent.script(scripts.text('never asked'));
    await chat.send('two', [TEST_MODEL], { onStored: () => storedCount++ });

    expect(storedCount).toBe(0);
    expect(chat.error).toMatch(/answering in another tab/);
    expect(texts(chat.chain)).toEqual(['one', 'Answer to one']);
    expect(chat.chain).toEqual(await storedChain());
    expect(chat.pendingUser).toBeNull();
    expect(chat.isRunning).toBe(false);

    release?.();
    await chat.send('two', [TEST_MODEL], { onStored: () => storedCount++ });
    expect(storedCount).toBe(1);
    expect(texts(chat.chain)).toEqual(['one', 'Answer to one', 'two', 'never asked']);
  });

  it('keeps the composer and says why when the chat was deleted meanwhile', async () => {
    const { chat, sessions, say } = await createChat();
    await say('one');
    await sessions.delete(chat.session?.id as SessionId);
    let storedCount = 0;
    await chat.send('two', [TEST_MODEL], { onStored: () => storedCount++ });
    expect(storedCount).toBe(0);
    expect(chat.error).toBe('This chat no longer exists.');
  });
});

describe('a temporary chat', () => {
  it('shows its turns and branches from the worker\'s memory and writes nothing to the database', async () => {
    const { agent, chat, say, createdSessions } = await createChat();
    chat.openTemporary();
    await say('secret');
    await say('more');
    expect(chat.error).toBeNull();
    expect(chat.isTemporary).toBe(true);
    expect(texts(chat.chain)).toEqual(['secret', 'Answer to secret', 'more', 'Answer to more']);
    // Its id never reaches the address bar: a reload must not find it.
    expect(createdSessions).toEqual([]);
    agent.script(scripts.text('Another answer'));
    await chat.regenerate(chat.chain[3]!.id, TEST_MODEL);
    expect(texts(chat.chain).at(-1)).toBe('Another answer');
    expect((await chat.siblingsOf(chat.chain[3]!.id)).count).toBe(2);
    expect(chat.hasUnsavedTemporaryChat).toBe(true);
    expect(await agent.db.sessions.count()).toBe(0);
    expect(await agent.db.messages.count()).toBe(0);
  });

  it('is saved as a normal chat, which then opens in its place', async () => {
    const { agent, chat, say, storedChain } = await createChat();
    chat.openTemporary();
    await say('keep me');
    const temporaryId = chat.session?.id;

    const savedId = await chat.saveTemporary();

    expect(savedId).not.toBeNull();
    expect(savedId).not.toBe(temporaryId);
    expect(chat.isTemporary).toBe(false);
    expect(chat.session?.id).toBe(savedId);
    expect(texts(await storedChain())).toEqual(['keep me', 'Answer to keep me']);
    expect(chat.chain).toEqual(await storedChain());
    expect(await agent.api.temporaryChat('getSession', [temporaryId!])).toBeUndefined();
  });

  it('is gone once the person opens another chat', async () => {
    const { agent, chat, say } = await createChat();
    chat.openTemporary();
    await say('fleeting');
    const temporaryId = chat.session!.id;

    await chat.open(null);

    expect(chat.isTemporary).toBe(false);
    expect(chat.hasUnsavedTemporaryChat).toBe(false);
    await vi.waitFor(async () => expect(await agent.api.temporaryChat('getSession', [temporaryId])).toBeUndefined());
    expect(await agent.db.sessions.count()).toBe(0);
  });
});
