import { beforeAll, describe, expect, it } from 'vitest';
import {
  assembleContext,
  measureOutputRoom,
  selectCacheBreakpoints,
  type AssembledContext,
  type ContextInput,
  type ContextMessage,
} from '../../../../src/core/context';
import type { ContextOrder } from '../../../../src/core/model';
import type { TokenCounter } from '../../../../src/core/ports';
import { createTokenCounter } from '../../../../src/core/tokens';
import {
  buildAgent,
  buildAssistantMessage,
  buildChain,
  buildFrozenClock,
  buildModelInfo,
  buildProject,
  buildProjectFile,
  buildUserMessage,
} from '../../../builders';

describe('the cache-friendly context order', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await createTokenCounter(['o200k_base']);
  });

  const turns = [
    buildUserMessage({ text: 'Who leads design?' }),
    buildAssistantMessage({ steps: [{ text: 'Ana leads design.' }] }),
    buildUserMessage({ text: 'And engineering?' }),
    buildAssistantMessage({ steps: [{ text: 'Bo leads engineering.' }] }),
    buildUserMessage({ text: 'Who owns the roadmap?' }),
  ];

  /** The request for the turn whose question is `turns[questionAt]`. */
  function assembleTurn(order: ContextOrder, questionAt: number, at?: string): AssembledContext {
    const input: ContextInput = {
      chain: buildChain(turns.slice(0, questionAt + 1)),
      agent: buildAgent({ prompt: 'You help the release manager.', reminders: ['Be brief.'], contextOrder: order }),
      project: {
        project: buildProject({ instructions: '' }),
        files: [buildProjectFile({ name: 'team.md', text: 'Ana leads design. Bo leads engineering.' })],
      },
      systemPromptOverride: null,
      tools: [],
      hasSearchRunInTurn: false,
      isLastCycle: false,
      model: buildModelInfo(),
      providerKind: 'anthropic',
      clock: buildFrozenClock(at),
      tokenCounter: counter,
    };
    const result = assembleContext(input);
    if (!result.ok) throw new Error(result.error.message);
    return result.value;
  }

  const sent = (messages: readonly ContextMessage[]) => messages.map((item) => item.message);

  /** How many messages at the start of `next` are exactly those of `previous`. */
  function sharedPrefix(previous: readonly ContextMessage[], next: readonly ContextMessage[]): number {
    let shared = 0;
    while (
      shared < previous.length &&
      JSON.stringify(previous[shared]?.message) === JSON.stringify(next[shared]?.message)
    )
      shared++;
    return shared;
  }

  it('sends the second turn again, up to its question, at the start of the third turn', () => {
    const second = assembleTurn('cache_friendly', 2).messages;
    const third = assembleTurn('cache_friendly', 4).messages;
    const breakpoints = selectCacheBreakpoints(second);
    const lastCached = breakpoints.at(-1) ?? -1;
    expect(second[lastCached]?.kind).toBe('user');
    expect(sharedPrefix(second, third)).toBeGreaterThan(lastCached);
    expect(sent(third).slice(0, lastCached + 1)).toEqual(sent(second).slice(0, lastCached + 1));
  });

  it('keeps the start of the request the same when the next turn comes minutes later, the time moving to the reminder', () => {
    const second = assembleTurn('cache_friendly', 2, '2026-11-21T10:00:00Z').messages;
    const third = assembleTurn('cache_friendly', 4, '2026-11-21T10:17:00Z').messages;
    const lastCached = selectCacheBreakpoints(second).at(-1) ?? -1;
    expect(sent(third).slice(0, lastCached + 1)).toEqual(sent(second).slice(0, lastCached + 1));
    expect(JSON.stringify(third.at(-1)?.message)).toContain('It is now Saturday November 21, 2026, 11:17 (Europe/Paris).');
    expect(JSON.stringify(third[0]?.message)).toContain('Saturday November 21, 2026 (Europe/Paris)');
    expect(JSON.stringify(third[0]?.message)).not.toContain('11:17');
  });

  it('in the recency order, the time in the system prompt changes the very first message from one minute to the next', () => {
    const early = assembleTurn('recency', 2, '2026-11-21T10:00:00Z').messages;
    const later = assembleTurn('recency', 2, '2026-11-21T10:01:00Z').messages;
    expect(sharedPrefix(early, later)).toBe(0);
  });

  it('keeps the agent prompt and the project files right after the system prompt', () => {
    const kinds = assembleTurn('cache_friendly', 4).messages.map((item) => item.kind);
    expect(kinds.slice(0, 3)).toEqual(['system', 'custom_agent', 'project_files']);
  });

  it('in the recency order, moves the project files down, so the next turn shares only what came before them', () => {
    const second = assembleTurn('recency', 2).messages;
    const third = assembleTurn('recency', 4).messages;
    const filesAt = second.findIndex((item) => item.kind === 'custom_agent');
    expect(sharedPrefix(second, third)).toBe(filesAt);
    expect(third.at(-2)?.kind).toBe('user');
    expect(third.findIndex((item) => item.kind === 'project_files')).toBeGreaterThan(filesAt);
  });

  it('with nothing to move, differs only in where the time of day is: the prompt or the reminder', () => {
    const only = (order: ContextOrder) => {
      const result = assembleContext({
        chain: buildChain([buildUserMessage({ text: 'Hi' })]),
        agent: buildAgent({ contextOrder: order }),
        project: null,
        systemPromptOverride: null,
        tools: [],
        hasSearchRunInTurn: false,
        isLastCycle: false,
        model: buildModelInfo(),
        providerKind: 'openai',
        clock: buildFrozenClock(),
        tokenCounter: counter,
      });
      if (!result.ok) throw new Error(result.error.message);
      return result.value.messages;
    };
    const recency = only('recency');
    const cacheFriendly = only('cache_friendly');
    expect(recency.map((item) => item.kind)).toEqual(['system', 'user']);
    expect(cacheFriendly.map((item) => item.kind)).toEqual(['system', 'user', 'reminder']);
    expect(cacheFriendly[1]?.message).toEqual(recency[1]?.message);
    expect(JSON.stringify(recency[0]?.message)).toContain('11:00');
    expect(JSON.stringify(cacheFriendly[0]?.message)).not.toContain('11:00');
    expect(JSON.stringify(cacheFriendly[2]?.message)).toContain('It is now Saturday November 21, 2026, 11:00');
  });
});

describe('selectCacheBreakpoints', () => {
  const message = (kind: ContextMessage['kind']): ContextMessage => ({
    kind,
    tokens: 1,
    message: kind === 'system' ? { role: 'system', content: kind } : { role: 'user', content: kind },
  });

  it('marks the system prompt, the last earlier turn and the question, never a reminder', () => {
    const messages = ['system', 'user', 'assistant', 'custom_agent', 'project_files', 'user', 'reminder'].map(
      (kind) => message(kind as ContextMessage['kind']),
    );
    expect(selectCacheBreakpoints(messages)).toEqual([0, 2, 5]);
  });

  it('marks the end of the head when the agent prompt and files follow the system prompt', () => {
    const messages = ['system', 'custom_agent', 'project_files', 'user'].map((kind) =>
      message(kind as ContextMessage['kind']),
    );
    expect(selectCacheBreakpoints(messages)).toEqual([0, 2, 3]);
  });

  it('never asks for more breakpoints than Anthropic accepts', () => {
    const kinds = ['system', 'system', 'custom_agent', 'project_files', 'user', 'assistant', 'tool_call', 'tool_result'];
    kinds.push('file', 'user', 'tool_call', 'tool_result', 'reminder');
    const breakpoints = selectCacheBreakpoints(kinds.map((kind) => message(kind as ContextMessage['kind'])));
    expect(breakpoints).toEqual([1, 3, 7, 11]);
  });

  it('marks nothing in an empty request', () => {
    expect(selectCacheBreakpoints([])).toEqual([]);
  });
});

describe('measureOutputRoom', () => {
  it('leaves what the prompt and tools do not take of the window, with the input margin', () => {
    const budget = { contextWindow: 2_600, reservedOutputTokens: 1_300, toolTokens: 100, inputBudget: 1_135 };
    // (1,035 + 100) / 0.95 = 1,195 (rounded up): 2,600 − 1,195 = 1,405.
    expect(measureOutputRoom({ budget, totalTokens: 1_035 })).toBe(1_405);
  });

  it('never goes below one token', () => {
    const budget = { contextWindow: 1_000, reservedOutputTokens: 0, toolTokens: 0, inputBudget: 950 };
    expect(measureOutputRoom({ budget, totalTokens: 5_000 })).toBe(1);
  });
});
