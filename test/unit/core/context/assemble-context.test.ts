import { beforeAll, describe, expect, it } from 'vitest';
import {
  assembleContext,
  READ_FILE_TOOL_NAME,
  type ContextInput,
} from '../../../../src/core/context';
import type { TokenCounter } from '../../../../src/core/ports';
import { createTokenCounter } from '../../../../src/core/tokens';
import {
  buildAgent,
  buildAssistantMessage,
  buildChain,
  buildContextTool,
  buildFrozenClock,
  buildModelInfo,
  buildProject,
  buildProjectFile,
  buildUserMessage,
} from '../../../builders';

describe('assembleContext', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await createTokenCounter(['o200k_base']);
  });

  function buildInput(overrides: Partial<ContextInput> = {}): ContextInput {
    return {
      chain: buildChain([buildUserMessage({ text: 'Hello' })]),
      agent: buildAgent(),
      project: null,
      systemPromptOverride: null,
      tools: [],
      hasSearchRunInTurn: false,
      isLastCycle: false,
      model: buildModelInfo(),
      providerKind: 'openai',
      clock: buildFrozenClock(),
      tokenCounter: counter,
      ...overrides,
    };
  }

  it('returns a typed error, not a throw, when there is no user message to answer', () => {
    const result = assembleContext(
      buildInput({ chain: buildChain([buildAssistantMessage({ steps: [{ text: 'Hi' }] })]) }),
    );
    expect(result).toEqual({
      ok: false,
      error: { code: 'no_user_message', message: 'There is no user message to answer.' },
    });
  });

  it('counts the system prompt with the model encoding, per request', () => {
    const result = assembleContext(buildInput());
    if (!result.ok) throw new Error(result.error.message);
    const system = result.value.messages[0];
    expect(system?.message.role).toBe('system');
    const text = system?.message.role === 'system' ? system.message.content : '';
    expect(system?.tokens).toBe(counter.count(text, 'o200k_base') + 4);
  });

  it('describes a tool in the system prompt only when it is offered this cycle', () => {
    const tool = buildContextTool({
      name: READ_FILE_TOOL_NAME,
      description: 'Reads a file.',
      usage: 'Use it to read a file.',
    });
    const withTool = assembleContext(buildInput({ tools: [tool] }));
    const withoutTool = assembleContext(buildInput());
    if (!withTool.ok || !withoutTool.ok) throw new Error('expected both to fit');
    const systemOf = (messages: typeof withTool.value.messages): string => {
      const first = messages[0]?.message;
      return first?.role === 'system' ? first.content : '';
    };
    expect(systemOf(withTool.value.messages)).toContain(
      `- ${READ_FILE_TOOL_NAME}: Use it to read a file.`,
    );
    expect(systemOf(withoutTool.value.messages)).not.toContain(READ_FILE_TOOL_NAME);
    expect(withTool.value.budget.toolTokens).toBeGreaterThan(0);
    expect(withoutTool.value.budget.toolTokens).toBe(0);
  });

  it('numbers search results after the inline project files', () => {
    const project = {
      project: buildProject(),
      files: [
        buildProjectFile({ name: 'a.md', text: 'A' }),
        buildProjectFile({ name: 'b.md', text: 'B' }),
      ],
    };
    const result = assembleContext(buildInput({ project }));
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.projectMode).toBe('inline');
    expect(result.value.nextDocumentNumber).toBe(3);
  });

  it('uses the session strategy over the agent strategy', () => {
    const chain = buildChain([
      buildUserMessage({ text: 'one' }),
      buildAssistantMessage({ steps: [{ text: 'two' }] }),
      buildUserMessage({ text: 'three' }),
    ]);
    const result = assembleContext(
      buildInput({
        chain,
        agent: buildAgent({ historyStrategy: { kind: 'unbounded' } }),
        historyStrategy: { kind: 'buffered', size: 1 },
      }),
    );
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.messages.map((item) => item.kind)).toEqual(['system', 'skipped', 'user']);
    expect(result.value.dropped.map((item) => item.reason)).toEqual(['strategy', 'strategy']);
  });

  it('reports what it dropped as a plain list: the same on every read, cloned, spread and sent as JSON', () => {
    const chain = buildChain([
      buildUserMessage({ text: 'one' }),
      buildAssistantMessage({ steps: [{ text: 'two' }] }),
      buildUserMessage({ text: 'three' }),
    ]);
    const result = assembleContext(
      buildInput({ chain, historyStrategy: { kind: 'buffered', size: 0 } }),
    );
    if (!result.ok) throw new Error(result.error.message);
    const context = result.value;
    const expected = [
      { kind: 'user', reason: 'strategy', tokens: 5, sourceId: chain[0]?.id },
      { kind: 'assistant', reason: 'strategy', tokens: 5, sourceId: chain[1]?.id },
    ];
    expect(Object.keys(context)).toEqual([
      'messages',
      'totalTokens',
      'budget',
      'shares',
      'dropped',
      'reductions',
      'projectMode',
      'nextDocumentNumber',
    ]);
    expect(structuredClone(context).dropped).toEqual(expected);
    expect({ ...context }.dropped).toEqual(expected);
    expect((JSON.parse(JSON.stringify(context)) as typeof context).dropped).toEqual(expected);
    expect(context.dropped).toBe(context.dropped);
    context.dropped = [];
    expect(context.dropped).toEqual([]);
  });

  it('never reads the stored text to count it: stored counts are trusted as they are', () => {
    const user = { ...buildUserMessage({ text: 'short' }), textTokenCount: 1234 };
    const result = assembleContext(buildInput({ chain: buildChain([user]) }));
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.messages.at(-1)?.tokens).toBe(1234 + 4);
  });
});
