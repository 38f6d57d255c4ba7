import { describe, expect, it } from 'vitest';
import { createSearchChatsTool, MAX_CHAT_PASSAGES, SEARCH_CHATS_TOOL_NAME, toChatDocument } from '../../../../../src/core/agent/tools/search-chats.tool';
import { renderNumberedDocuments } from '../../../../../src/core/context';
import { asAgentId, asMessageId, asSessionId, type Agent, type ChatMessageSimple } from '../../../../../src/core/model';
import type { ChatHistorySearch } from '../../../../../src/core/ports';
import { createAgentStore } from '../../../../../src/storage/agent.store';
import { createMessageStore } from '../../../../../src/storage/message.store';
import { createSessionStore } from '../../../../../src/storage/session.store';
import { createChatHistorySearch, createChatIndexLoader } from '../../../../../src/workers/agent/chat-history';
import { scripts } from '../../../../fakes/scripted-llm-client';
import { TestAgent } from '../../../../fakes/test-agent';
import { buildSession, buildUserMessage, createFrozenClock, openTestDb } from '../../../storage/storage-fixtures';

const ARCHIVIST: Agent = {
  id: asAgentId('archivist'),
  name: 'Archivist',
  prompt: 'You remember what the user said before.',
  shouldReplaceSystemPrompt: false,
  reminders: [],
  defaultModel: null,
  enabledTools: [SEARCH_CHATS_TOOL_NAME],
  historyStrategy: { kind: 'auto' },
  isBuiltIn: false,
  createdAt: 1,
  updatedAt: 1,
};

const signal = new AbortController().signal;

describe('the search_chats tool', () => {
  it('renders each passage as a numbered document naming the chat, the speaker and the day', () => {
    const document = toChatDocument({
      sessionId: asSessionId('s-offsite'),
      messageId: asMessageId('m-7'),
      title: 'Offsite planning',
      role: 'assistant',
      model: { providerId: 'p' as never, modelId: 'model-alpha' },
      createdAt: Date.UTC(2026, 10, 20, 15),
      passage: '…the Birchwood lodge fits forty people…',
    });
    expect(renderNumberedDocuments([{ ...document, number: 3 }])).toBe(
      '{"documents": [\n' +
        '{"document":3,"title":"Offsite planning","metadata":"Answer by model-alpha · 2026-11-20","contents":"…the Birchwood lodge fits forty people…"}' +
        '\n]}',
    );
    expect(document.chat).toEqual({ sessionId: 's-offsite', messageId: 'm-7' });
    expect(
      toChatDocument({
        sessionId: asSessionId('s'),
        messageId: asMessageId('m'),
        title: '  ',
        role: 'user',
        createdAt: Date.UTC(2026, 0, 2),
        passage: 'hello',
      }),
    ).toMatchObject({ title: 'Untitled chat', metadata: 'You · 2026-01-02' });
  });

  it('asks the history for a bounded number of passages, never from the chat being answered', async () => {
    const asked: unknown[] = [];
    const search: ChatHistorySearch = {
      search: (queries, options) => {
        asked.push({ queries, options });
        return Promise.resolve([]);
      },
    };
    const tool = createSearchChatsTool({ search, excludeSessionId: asSessionId('current') });
    const output = await tool.execute({ queries: ['offsite venue', 'lodge'] }, { signal });
    expect(asked).toEqual([
      { queries: ['offsite venue', 'lodge'], options: { excludeSessionId: 'current', limit: MAX_CHAT_PASSAGES } },
    ]);
    expect(output).toEqual({
      kind: 'documents',
      documents: [],
      emptyNotice: 'No other chat matched "offsite venue", "lodge". Try other words, or answer without the user\'s history.',
    });
    expect(tool.inputSchema.safeParse({ queries: [] }).success).toBe(false);
    expect(tool.isSearch).toBe(true);
  });
});

describe('searching the stored chats', () => {
  async function storeChats() {
    const db = await openTestDb();
    const clock = createFrozenClock();
    const sessions = createSessionStore(db, clock);
    const messages = createMessageStore(db, clock);
    const put = async (sessionId: string, title: string, rows: Array<[string, string | null, string]>) => {
      await sessions.create(buildSession({ id: asSessionId(sessionId), title }));
      for (const [id, parentId, text] of rows) {
        await messages.put(buildUserMessage(id, parentId, { sessionId: asSessionId(sessionId), text }));
      }
    };
    await put('s-offsite', 'Offsite planning', [['m-venue', null, 'We booked the Birchwood lodge for the spring offsite.']]);
    await put('s-recipes', 'Sourdough', [['m-bread', null, 'My starter smells of acetone when hungry.']]);
    await put('s-current', 'Today', [['m-now', null, 'Where was the offsite again, Birchwood?']]);
    await put('s-names', 'Birchwood lodge', [['m-first', null, 'Which rooms should we take?']]);
    const search = createChatHistorySearch({ sessions, messages, loadIndex: createChatIndexLoader(db) });
    return { db, sessions, messages, search };
  }

  it('returns the matching messages of other chats with their chat, and a title match at its first message', async () => {
    const { search } = await storeChats();
    const hits = await search.search(['Birchwood'], { excludeSessionId: asSessionId('s-current'), limit: 8 }, signal);
    expect(hits.map((hit) => [hit.sessionId, hit.messageId, hit.title])).toEqual(
      expect.arrayContaining([
        ['s-offsite', 'm-venue', 'Offsite planning'],
        ['s-names', 'm-first', 'Birchwood lodge'],
      ]),
    );
    expect(hits).toHaveLength(2);
    expect(hits.find((hit) => hit.messageId === 'm-venue')).toMatchObject({
      role: 'user',
      passage: 'We booked the Birchwood lodge for the spring offsite.',
    });
  });

  it('merges several queries, keeps each message once and stops at the limit', async () => {
    const { search } = await storeChats();
    const hits = await search.search(['Birchwood lodge', 'offsite', 'acetone'], { excludeSessionId: null, limit: 3 }, signal);
    expect(hits).toHaveLength(3);
    expect(new Set(hits.map((hit) => hit.messageId)).size).toBe(3);
  });

  it('never cites a chat deleted after the index was built', async () => {
    const { search, sessions } = await storeChats();
    expect((await search.search(['acetone'], { excludeSessionId: null, limit: 8 }, signal)).map((hit) => hit.messageId)).toEqual([
      'm-bread',
    ]);
    await sessions.delete(asSessionId('s-recipes'));
    expect(await search.search(['acetone'], { excludeSessionId: null, limit: 8 }, signal)).toEqual([]);
  });

  it('finds a message written after the first search', async () => {
    const { search, messages } = await storeChats();
    expect(await search.search(['marmalade'], { excludeSessionId: null, limit: 8 }, signal)).toEqual([]);
    await messages.put(
      buildUserMessage('m-jam', 'm-bread', { sessionId: asSessionId('s-recipes'), text: 'Seville oranges make the best marmalade.' }),
    );
    const hits = await search.search(['marmalade'], { excludeSessionId: null, limit: 8 }, signal);
    expect(hits.map((hit) => hit.messageId)).toEqual(['m-jam']);
  });
});

describe('a turn that searches past chats', () => {
  async function startWithHistory() {
    const agent = await TestAgent.create();
    await createAgentStore(agent.db).put(ARCHIVIST);
    const past = await agent
      .script(scripts.text('Then the Birchwood lodge it is: forty beds and a lake.'))
      .send('Which venue did we pick for the spring offsite?');
    return { agent, pastSessionId: past.result.ok ? past.result.value.sessionId : '', past };
  }

  it('is not offered to the built-in agent', async () => {
    const { agent } = await startWithHistory();
    await agent.script(scripts.text('No idea.')).send('new chat', { sessionId: null });
    expect(agent.llm.requests.at(-1)?.tools.map((tool) => tool.name)).not.toContain(SEARCH_CHATS_TOOL_NAME);
  });

  it('cites a passage of another chat by number, pointing at the message it came from', async () => {
    const { agent, pastSessionId, past } = await startWithHistory();
    const turn = await agent
      .script(
        scripts.toolCalls([{ id: 'c1', name: SEARCH_CHATS_TOOL_NAME, args: { queries: ['Birchwood lodge'] } }]),
        scripts.text('You settled on the Birchwood lodge [1].'),
      )
      .send('Remind me where the offsite is, and note Birchwood here too.', { sessionId: null, agentId: ARCHIVIST.id });

    const request = agent.llm.requests.at(-2);
    expect(request?.tools.map((tool) => tool.name)).toContain(SEARCH_CHATS_TOOL_NAME);
    const answer = turn.answers[0] as Extract<ChatMessageSimple, { role: 'assistant' }>;
    const pastAnswerId = past.answers[0]?.id;
    expect(answer.citations).toEqual([
      {
        number: 1,
        title: 'Which venue did we pick for the spring offsite?',
        chat: { sessionId: pastSessionId, messageId: pastAnswerId },
      },
    ]);
    const result = answer.steps[0]?.toolCalls[0]?.result;
    // The current chat mentions Birchwood too, and is left out: one document, the past answer.
    expect(result?.documents).toEqual([answer.citations[0]]);
    expect(result?.content).toContain('"contents":"Then the Birchwood lodge it is: forty beds and a lake."');
    expect(result?.content).toContain('"metadata":"Answer by gpt-4o-mini · 2026-11-21"');
  });
});
