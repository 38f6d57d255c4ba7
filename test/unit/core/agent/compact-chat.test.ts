import { beforeAll, describe, expect, it } from 'vitest';
import { chooseSummariserRef, compactChat, undoCompaction, type CompactArgs } from '../../../../src/core/agent/compact-chat';
import { asProviderId, type ChatMessageSimple, type ChatSummary, type ProviderConfig, type SessionId } from '../../../../src/core/model';
import type { SummaryStore, TokenCounter } from '../../../../src/core/ports';
import { createTokenCounter } from '../../../../src/core/tokens';
import { buildAgent, buildAssistantMessage, buildChain, buildModelInfo, buildUserMessage } from '../../../builders';
import { scripts, ScriptedLlmClient } from '../../../fakes/scripted-llm-client';

const TEXT = 'Some background, an example and its constraints. '.repeat(8);
const PROVIDER = { id: asProviderId('p'), kind: 'openai', models: ['chat-model'] } as unknown as ProviderConfig;
const LOCAL = { id: asProviderId('local'), kind: 'local', models: ['built-in'] } as unknown as ProviderConfig;

function chainOf(turns: number, label = 'Question'): ChatMessageSimple[] {
  const messages: ChatMessageSimple[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push(buildUserMessage({ text: `${label} ${turn}: ${TEXT}` }));
    messages.push(buildAssistantMessage({ steps: [{ text: `Answer ${turn}: ${TEXT}` }] }));
  }
  return buildChain(messages);
}

function memoryStore(): SummaryStore & { rows: ChatSummary[] } {
  const rows: ChatSummary[] = [];
  return {
    rows,
    add: (summary) => (rows.push(summary), Promise.resolve(summary)),
    listBySession: () => Promise.resolve(rows.map((row) => ({ ...row }))),
    markUndone: (id, at) => {
      const row = rows.find((r) => r.id === id);
      if (row) row.undoneAt = at;
      return Promise.resolve();
    },
  };
}

describe('compactChat', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await createTokenCounter(['o200k_base']);
  });

  function setup(chain: ChatMessageSimple[], overrides: Partial<CompactArgs> = {}) {
    const llm = new ScriptedLlmClient();
    const summaries = memoryStore();
    let now = 1_000;
    const deps = { llm, tokens: counter, clock: { now: () => ++now, timeZone: () => 'UTC' }, ids: { newId: () => `id${now}` }, summaries };
    const args: CompactArgs = {
      sessionId: chain[0]?.sessionId as SessionId,
      chain,
      agent: buildAgent({ uploadShare: 0 }),
      chatModel: buildModelInfo({ contextWindow: 1_200, maxOutputTokens: 100 }),
      chatProvider: PROVIDER,
      summariser: { provider: LOCAL, ref: { providerId: LOCAL.id, modelId: 'built-in' }, model: buildModelInfo({ contextWindow: 4_000, maxOutputTokens: 500 }) },
      force: false,
      ...overrides,
    };
    return { llm, summaries, deps, args };
  }

  it('summarises a long chat with the summary model and stores a record pointing at what it covers', async () => {
    const chain = chainOf(8);
    const { llm, summaries, deps, args } = setup(chain);
    llm.enqueue([scripts.text('The user asked about six topics.')]);
    const summary = await compactChat(args, deps, new AbortController().signal);
    expect(summary?.text).toBe('The user asked about six topics.');
    expect(summary?.coveredIds).toEqual(chain.slice(0, 12).map((m) => m.id));
    expect(summary?.previousSummaryId).toBeNull();
    expect(llm.requests[0]?.modelId).toBe('built-in');
    expect(llm.requests[0]?.messages[1]?.content).toContain('Question 1:');
    expect(summaries.rows).toHaveLength(1);
  });

  it('continues the previous summary on the next compaction', async () => {
    const chain = chainOf(8);
    const { llm, deps, args } = setup(chain);
    llm.enqueue([scripts.text('First summary.'), scripts.text('Second summary.')]);
    const first = await compactChat(args, deps, new AbortController().signal);
    const longer = buildChain([...chain, ...chainOf(4, 'Later question')]);
    const second = await compactChat({ ...args, chain: longer }, deps, new AbortController().signal);
    expect(second?.previousSummaryId).toBe(first?.id);
    const transcript = llm.requests[1]?.messages[1]?.content;
    expect(transcript).toContain('Summary so far:\nFirst summary.');
    expect(transcript).toContain('Question 7: ');
    expect(transcript).not.toContain('Question 1: ');
  });

  it('does nothing below the threshold, when the agent turns it off, or after an undo until "Compact now"', async () => {
    const short = setup(chainOf(2));
    expect(await compactChat(short.args, short.deps, new AbortController().signal)).toBeNull();
    const off = setup(chainOf(8), { agent: buildAgent({ uploadShare: 0, isCompactionEnabled: false }) });
    expect(await compactChat(off.args, off.deps, new AbortController().signal)).toBeNull();
    expect(off.llm.requests).toHaveLength(0);

    const { llm, summaries, deps, args } = setup(chainOf(8));
    llm.enqueue([scripts.text('Summary.'), scripts.text('Again.')]);
    const summary = await compactChat(args, deps, new AbortController().signal);
    const undone = await undoCompaction(args.sessionId, args.chain, deps);
    expect(undone?.id).toBe(summary?.id);
    expect(summaries.rows[0]?.undoneAt).toBeDefined();
    expect(await compactChat(args, deps, new AbortController().signal)).toBeNull();
    expect((await compactChat({ ...args, force: true }, deps, new AbortController().signal))?.text).toBe('Again.');
    // Nothing left to undo once every summary is undone.
    await undoCompaction(args.sessionId, args.chain, deps);
    expect(await undoCompaction(args.sessionId, args.chain, deps)).toBeNull();
  });

  it('reports a failed summary request and stores nothing', async () => {
    const { llm, summaries, deps, args } = setup(chainOf(8));
    llm.enqueue([[{ type: 'error', error: { code: 'server_error', message: 'boom' } } as never]]);
    await expect(compactChat(args, deps, new AbortController().signal)).rejects.toThrow('boom');
    expect(summaries.rows).toHaveLength(0);
  });

  it('picks the chosen model, else the built-in one, else the chat model', () => {
    const chat = { providerId: PROVIDER.id, modelId: 'chat-model' };
    expect(chooseSummariserRef([PROVIDER, LOCAL], chat, null)).toEqual({ providerId: LOCAL.id, modelId: 'built-in' });
    expect(chooseSummariserRef([PROVIDER], chat, null)).toEqual(chat);
    expect(chooseSummariserRef([PROVIDER, LOCAL], chat, { providerId: PROVIDER.id, modelId: 'mini' })).toEqual({ providerId: PROVIDER.id, modelId: 'mini' });
    expect(chooseSummariserRef([PROVIDER], chat, { providerId: asProviderId('gone'), modelId: 'x' })).toEqual(chat);
  });
});
