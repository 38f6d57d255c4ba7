import { beforeAll, describe, expect, it } from 'vitest';
import {
  assembleContext,
  buildSummaryRequest,
  describeForSummary,
  planCompaction,
  type ContextInput,
} from '../../../../src/core/context';
import type { ChatMessageSimple, ChatSummary } from '../../../../src/core/model';
import type { TokenCounter } from '../../../../src/core/ports';
import { createTokenCounter } from '../../../../src/core/tokens';
import {
  buildAgent,
  buildAssistantMessage,
  buildChain,
  buildFrozenClock,
  buildModelInfo,
  buildSummary,
  buildUserMessage,
} from '../../../builders';

const LONG = 'This paragraph explains the topic with background, an example and its constraints. '.repeat(6);

function buildTurns(count: number, withTools = false): ChatMessageSimple[] {
  const messages: ChatMessageSimple[] = [];
  for (let turn = 1; turn <= count; turn++) {
    messages.push(buildUserMessage({ text: `Question ${turn}: ${LONG}` }));
    messages.push(
      buildAssistantMessage({
        steps: withTools && turn % 2 === 0
          ? [
              { toolCalls: [{ name: 'web_search', arguments: { query: `topic ${turn}` }, result: 'found' }, { name: 'read_url', arguments: { url: 'https://example.com' }, result: 'page' }] },
              { text: `Answer ${turn}: ${LONG}` },
            ]
          : [{ text: `Answer ${turn}: ${LONG}` }],
      }),
    );
  }
  return buildChain(messages);
}

function buildInput(chain: ChatMessageSimple[], counter: TokenCounter, contextWindow: number, summaries: ChatSummary[] = []): ContextInput {
  return {
    chain,
    agent: buildAgent({ uploadShare: 0 }),
    project: null,
    systemPromptOverride: null,
    tools: [],
    hasSearchRunInTurn: false,
    isLastCycle: false,
    model: buildModelInfo({ contextWindow, maxOutputTokens: 100 }),
    providerKind: 'openai',
    summaries,
    clock: buildFrozenClock(),
    tokenCounter: counter,
  };
}

describe('compaction planning and the summariser request', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await createTokenCounter(['o200k_base']);
  });

  it('waits until the history passes the threshold of its budget, then summarises all but the newest share', () => {
    const chain = buildTurns(8);
    expect(planCompaction(buildInput(chain, counter, 100_000))).toBeNull();
    const plan = planCompaction(buildInput(chain, counter, 2_000));
    expect(plan).not.toBeNull();
    if (plan === null) return;
    expect(plan.historyTokens).toBeGreaterThan(plan.historyBudget * 0.75);
    // Cut where a question starts; the newest turns (at least a quarter) stay verbatim.
    expect(plan.turns[0]?.id).toBe(chain[0]?.id);
    const kept = chain.slice(plan.turns.length);
    expect(kept[0]?.role).toBe('user');
    expect(kept.length).toBeGreaterThanOrEqual(2);
    expect(kept.length / chain.length).toBeGreaterThanOrEqual(0.2);
    expect(kept.length / chain.length).toBeLessThanOrEqual(0.3);
  });

  it('"Compact now" ignores the threshold but still keeps the newest turn verbatim', () => {
    const chain = buildTurns(4);
    const plan = planCompaction(buildInput(chain, counter, 100_000), { force: true });
    expect(plan?.turns.map((m) => m.id)).toEqual(chain.slice(0, 6).map((m) => m.id));
    expect(planCompaction(buildInput(chain.slice(0, 2), counter, 100_000), { force: true })).toBeNull();
  });

  it('builds incrementally: the previous summary plus only the turns since', () => {
    const chain = buildTurns(8);
    const previous = buildSummary(chain, { throughIndex: 5, text: 'Topics 1 to 3 were covered.' }, 0, counter);
    const plan = planCompaction(buildInput(chain, counter, 100_000, [previous]), { force: true });
    expect(plan?.previous?.id).toBe(previous.id);
    expect(plan?.turns[0]?.id).toBe(chain[6]?.id);
    const request = plan && buildSummaryRequest(plan, buildModelInfo({ contextWindow: 100_000 }), counter);
    const transcript = request?.messages[1]?.content;
    expect(transcript).toContain('Summary so far:\nTopics 1 to 3 were covered.');
    expect(transcript).toContain('Question 4:');
    expect(transcript).not.toContain('Question 3:');
  });

  it('describes tool use as "[Used tools: …]", each tool once', () => {
    const chain = buildTurns(2, true);
    expect(describeForSummary(chain[3] as ChatMessageSimple)).toBe(`Assistant: Answer 2: ${LONG}\n[Used tools: web_search, read_url]`);
    expect(describeForSummary(chain[1] as ChatMessageSimple)).not.toContain('[Used tools');
  });

  it('fits the summariser window: whole turns while they fit, long messages cut, the rest left for later', () => {
    const chain = buildTurns(12);
    const plan = planCompaction(buildInput(chain, counter, 100_000), { force: true });
    if (plan === null) throw new Error('expected a plan');
    const small = buildModelInfo({ contextWindow: 900, maxOutputTokens: 400 });
    const request = buildSummaryRequest(plan, small, counter);
    if (request === null) throw new Error('expected a request');
    expect(request.inputTokens).toBeLessThanOrEqual(request.inputBudget);
    expect(request.inputTokens + request.maxOutputTokens).toBeLessThanOrEqual(small.contextWindow);
    expect(request.turns.length).toBeGreaterThan(0);
    expect(request.turns.length).toBeLessThan(plan.turns.length);
    expect(request.turns.at(-1)?.role).toBe('assistant');
    // A window too small for any message: no request rather than one that does not fit.
    expect(buildSummaryRequest(plan, buildModelInfo({ contextWindow: 120, maxOutputTokens: 30 }), counter)).toBeNull();
  });

  it('applies per branch: a summary of another branch is ignored', () => {
    const chain = buildTurns(4);
    const summary = buildSummary(chain, { throughIndex: 3, text: 'Topics 1 and 2.' }, 0, counter);
    const question = buildUserMessage({ text: 'Next?' });
    const withSummary = assembleContext(buildInput([...chain, { ...question, id: 'q' as never, parentId: chain.at(-1)?.id ?? null }], counter, 100_000, [summary]));
    expect(withSummary.ok && withSummary.value.messages.some((m) => m.kind === 'summary')).toBe(true);
    // Another branch: the same first turn, then an edited second question.
    const edited = buildUserMessage({ text: 'Question 2, edited' });
    const branch = [chain[0], chain[1], { ...edited, id: 'edited' as never, parentId: chain[1]?.id ?? null }] as ChatMessageSimple[];
    const other = assembleContext(buildInput(branch, counter, 100_000, [summary]));
    expect(other.ok && other.value.messages.some((m) => m.kind === 'summary')).toBe(false);
    expect(other.ok && other.value.messages.filter((m) => m.kind === 'user').length).toBe(2);
  });
});
