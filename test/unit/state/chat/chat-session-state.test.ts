import { describe, expect, it, vi } from 'vitest';
import {
  asMessageId,
  asSessionId,
  type ChatMessageSimple,
  type MessageId,
  type SessionId,
} from '../../../../src/core/model';
import {
  ChatSessionState,
  FIRST_SCREEN_MESSAGES,
  OLDER_MESSAGES_BATCH,
} from '../../../../src/state/chat/chat-session.svelte';
import { placeRows } from '../../../../src/storage/message-lines';
import { toMessageRow } from '../../../../src/storage/message-rows';
import { createTemporaryChatStores } from '../../../../src/state/chat/chat-stores';
import { createMessageStore } from '../../../../src/storage/message.store';
import { createSessionStore } from '../../../../src/storage/session.store';
import type { AgentClient } from '../../../../src/workers/agent/agent.client';
import { createMemorySessionLocks, type SessionLocks } from '../../../../src/workers/agent/session-locks';
import { scripts } from '../../../fakes/scripted-llm-client';
import { TEST_MODEL, TestAgent } from '../../../fakes/test-agent';
import { buildAssistantMessage, buildSession, buildUserMessage } from '../../storage/storage-fixtures';

/**
 * The chat state over the real agent host and real stores (fake-indexeddb): what it shows after
 * a turn must be what storage holds.
 */
async function createChat(options: { afterTurn?: () => Promise<void>; locks?: SessionLocks; shouldGenerateTitles?: boolean } = {}) {
  const agent = await TestAgent.create({
    ...(options.locks ? { locks: options.locks } : {}),
    ...(options.shouldGenerateTitles ? { shouldGenerateTitles: true } : {}),
  });
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
    countTokensOfEach: (texts) => agent.api.countTokensOfEach(texts),
    compactNow: (sessionId) => agent.api.compactNow(sessionId),
    undoCompaction: (sessionId) => agent.api.undoCompaction(sessionId),
    listSummaries: (sessionId) => agent.api.listSummaries(sessionId),
    temporaryChat: (call, args) => agent.api.temporaryChat(call, args),
    saveTemporaryChat: (sessionId) => agent.api.saveTemporaryChat(sessionId),
    discardTemporaryChat: (sessionId) => agent.api.discardTemporaryChat(sessionId),
    temporaryChatTitle: (sessionId) => agent.api.temporaryChatTitle(sessionId),
    testWebSearch: refuse,
    testMcpServer: refuse,
    searchProject: refuse,
    prepareProjectSearch: refuse,
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

  it('answers every row’s branch switcher as storage does, reading the forks once per version', async () => {
    const { agent, chat, messages, say } = await createChat();
    await say('one');
    await say('two');
    await say('three');
    agent.script(scripts.text('Another answer to two'));
    await chat.regenerate(chat.chain[3]!.id, TEST_MODEL);
    const truth = await Promise.all(chat.chain.map((message) => messages.siblings(message.id)));
    const siblings = vi.spyOn(messages, 'siblings');
    const forkedParents = vi.spyOn(messages, 'forkedParents');

    const shown = await Promise.all(chat.chain.map((message) => chat.siblingsOf(message.id)));

    expect(shown).toEqual(truth);
    expect(shown.map((position) => position.count)).toEqual([1, 1, 1, 2]);
    expect(forkedParents).toHaveBeenCalledTimes(1);
    // Only the row with a sibling reads its siblings.
    expect(siblings.mock.calls).toEqual([[chat.chain[3]!.id]]);

    // A third answer is a new version of the session: the forks are read again.
    agent.script(scripts.text('A third answer to two'));
    await chat.regenerate(chat.chain[3]!.id, TEST_MODEL);
    expect((await chat.siblingsOf(chat.chain[3]!.id)).count).toBe(3);
    expect((await chat.siblingsOf(chat.chain[2]!.id)).count).toBe(1);
    expect(forkedParents).toHaveBeenCalledTimes(2);
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

describe('a long chat', () => {
  /** A stored chat of `turns` questions and answers, longer than one batch of older messages. */
  async function seedLongChat({ agent }: Awaited<ReturnType<typeof createChat>>, turns: number) {
    const messages: ChatMessageSimple[] = [];
    let parent: string | null = null;
    for (let turn = 0; turn < turns; turn++) {
      messages.push(buildUserMessage(`q${turn}`, parent, { createdAt: 10 + turn * 2 }));
      messages.push(buildAssistantMessage(`a${turn}`, `q${turn}`, { createdAt: 11 + turn * 2 }));
      parent = `a${turn}`;
    }
    // Written in one go, as an import places them.
    await agent.db.sessions.put(buildSession({ id: asSessionId('s1'), currentLeafId: asMessageId(parent ?? '') }));
    await agent.db.messages.bulkPut(placeRows([], messages.map(toMessageRow)));
  }
  const TURNS = Math.ceil((FIRST_SCREEN_MESSAGES + OLDER_MESSAGES_BATCH) / 2) + 10;

  it('opens at its newest messages, then puts every older one in front, in order', async () => {
    const setup = await createChat();
    await seedLongChat(setup, TURNS);
    const { chat, storedChain } = setup;
    await chat.open(asSessionId('s1'));
    expect(chat.chain).toHaveLength(FIRST_SCREEN_MESSAGES);
    expect(chat.chain.at(-1)?.id).toBe(`a${TURNS - 1}`);
    const firstScreen = [...chat.chain];
    const firstItems = [...chat.items];
    await vi.waitFor(() => expect(chat.chain).toHaveLength(TURNS * 2), { timeout: 20_000 });
    expect(chat.chain).toEqual(await storedChain());
    // The messages of the first screen stay the same objects: their rows are not built again.
    for (const [index, message] of firstScreen.entries())
      expect(chat.chain[TURNS * 2 - FIRST_SCREEN_MESSAGES + index]).toBe(message);
    expect(chat.items.map((item) => item.key)).toEqual(chat.chain.map((message) => message.id));
    for (const [index, item] of firstItems.entries())
      expect(chat.items[TURNS * 2 - FIRST_SCREEN_MESSAGES + index]).toBe(item);
  });

  it('opened at a message far above its first screen, shows the whole chain with that message marked', async () => {
    const setup = await createChat();
    await seedLongChat(setup, TURNS);
    const { chat, storedChain } = setup;
    await chat.open(asSessionId('s1'), asMessageId('a1'));
    expect(chat.chain).toEqual(await storedChain());
    expect(chat.focusedMessageId).toBe('a1');
  });

  it('keeps a turn sent before the older messages arrived, and lists no message twice', async () => {
    const setup = await createChat();
    await seedLongChat(setup, TURNS);
    const { chat, say, storedChain } = setup;
    await chat.open(asSessionId('s1'));
    await say('one more');
    await vi.waitFor(() => expect(chat.chain).toHaveLength(TURNS * 2 + 2), { timeout: 20_000 });
    expect(chat.chain).toEqual(await storedChain());
    expect(texts(chat.chain.slice(-2))).toEqual(['one more', 'Answer to one more']);
  });

  it('drops the older messages of a chat no longer shown', async () => {
    const setup = await createChat();
    await seedLongChat(setup, TURNS);
    const { chat, messages, say } = setup;
    const reads: Array<Promise<unknown>> = [];
    const loadChainEnd = messages.loadChainEnd.bind(messages);
    messages.loadChainEnd = (...args) => {
      const read = loadChainEnd(...args);
      reads.push(read);
      return read;
    };
    await chat.open(asSessionId('s1'));
    // A batch of older messages is being read when another chat is shown.
    await vi.waitFor(() => expect(reads).toHaveLength(2), { timeout: 20_000, interval: 1 });
    await chat.open(null);
    await say('a new chat');
    // Every read the first chat started has come back, and the tasks after it have run.
    for (let settled = -1; settled !== reads.length; ) {
      settled = reads.length;
      await Promise.all(reads);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    expect(reads).toHaveLength(2);
    expect(texts(chat.chain)).toEqual(['a new chat', 'Answer to a new chat']);
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

  it('shows the model-written title once it is in, and stores it nowhere', async () => {
    const { agent, chat } = await createChat({ shouldGenerateTitles: true });
    chat.openTemporary();
    agent.script(scripts.text('Paris is the capital of France.'), scripts.text('"Capital of France."'));

    await chat.send('What is the capital of France? I need it for a quiz tonight with friends', [TEST_MODEL]);

    await vi.waitFor(() => expect(chat.session?.title).toBe('Capital of France'));
    expect(chat.isTemporary).toBe(true);
    expect(await agent.db.sessions.count()).toBe(0);
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

describe('opening a chat at a message', () => {
  it('shows the branch holding the message and marks it, and forgets the mark on the next send', async () => {
    const { agent, chat, say } = await createChat();
    await say('one');
    const firstAnswer = chat.chain[1]?.id as MessageId;
    agent.script(scripts.text('Another answer'));
    await chat.regenerate(firstAnswer, TEST_MODEL);
    const sessionId = chat.session?.id as SessionId;

    await chat.open(null);
    await chat.open(sessionId, firstAnswer);
    expect(texts(chat.chain)).toEqual(['one', 'Answer to one']);
    expect(chat.focusedMessageId).toBe(firstAnswer);

    await say('two');
    expect(chat.focusedMessageId).toBeNull();
  });

  it('opens the chat without a mark when the message is not in it', async () => {
    const { chat, say } = await createChat();
    await say('one');
    const sessionId = chat.session?.id as SessionId;
    await chat.open(null);
    await chat.open(sessionId, 'gone' as MessageId);
    expect(texts(chat.chain)).toEqual(['one', 'Answer to one']);
    expect(chat.focusedMessageId).toBeNull();
  });
});

describe('merging compared answers', () => {
  it('streams the merged answer as a new branch under the question, naming the compared answers', async () => {
    const { agent, chat } = await createChat();
    const alpha = { ...TEST_MODEL, modelId: 'model-alpha' };
    const beta = { ...TEST_MODEL, modelId: 'model-beta' };
    agent.scriptFor('model-alpha', scripts.text('Alpha answer.'));
    agent.scriptFor('model-beta', scripts.text('Beta answer.'));
    await chat.send('Which?', [alpha, beta]);
    const compared = chat.compareGroup?.answers.map((answer) => answer.messageId);
    expect(compared).toHaveLength(2);

    agent.scriptFor('model-beta', scripts.text('Merged answer.'));
    await chat.fuse(beta);
    expect(chat.compareGroup).toBeNull();
    expect(texts(chat.chain)).toEqual(['Which?', 'Merged answer.']);
    const merged = chat.items.at(-1);
    expect(merged?.kind === 'answer' ? merged.answer.fusedFrom : undefined).toEqual([
      { messageId: compared?.[0], label: 'Answer 1 (model-alpha)' },
      { messageId: compared?.[1], label: 'Answer 2 (model-beta)' },
    ]);
    const position = await chat.siblingsOf(chat.chain[1]?.id as string);
    expect({ index: position.index, count: position.count }).toEqual({ index: 2, count: 3 });
  });
});
