import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  assembleContext,
  type ContextInput,
  type ContextMessage,
} from '../../../../src/core/context';
import type { ChatMessageSimple, LlmMessage } from '../../../../src/core/model';
import type { TokenCounter } from '../../../../src/core/ports';
import { createTokenCounter } from '../../../../src/core/tokens';
import {
  buildAgent,
  buildAssistantMessage,
  buildChain,
  buildContextTool,
  buildFrozenClock,
  buildModelInfo,
  buildTextAttachment,
  buildUserMessage,
} from '../../../builders';
import { strategyArbitrary } from './random-session';

/**
 * Random histories and budgets. Stored token counts are drawn at random (the engine trusts them,
 * rule 13), which lets one run cover tiny and huge messages without generating huge texts.
 */

const toolCallArbitrary = fc.record({
  resultTokens: fc.integer({ min: 0, max: 400 }),
  status: fc.constantFrom('complete' as const, 'cancelled' as const, 'pending' as const),
});

const turnArbitrary = fc.record({
  userTokens: fc.integer({ min: 1, max: 300 }),
  fileTokens: fc.option(fc.integer({ min: 1, max: 600 }), { nil: undefined }),
  pinChance: fc.integer({ min: 0, max: 9 }),
  excludeChance: fc.integer({ min: 0, max: 9 }),
  toolSteps: fc.array(fc.array(toolCallArbitrary, { minLength: 1, maxLength: 2 }), {
    maxLength: 2,
  }),
  answerTokens: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
});

const scenarioArbitrary = fc.record({
  turns: fc.array(turnArbitrary, { minLength: 1, maxLength: 7 }),
  contextWindow: fc.integer({ min: 300, max: 6000 }),
  maxOutputTokens: fc.integer({ min: 50, max: 600 }),
  strategy: strategyArbitrary,
  reminders: fc.array(fc.constantFrom('Be brief.', 'Answer in French.'), { maxLength: 2 }),
  hasSearchRunInTurn: fc.boolean(),
  isLastCycle: fc.boolean(),
  hasTools: fc.boolean(),
  agentPrompt: fc.constantFrom('', 'You are a terse assistant.'),
  uploadShare: fc.option(fc.constantFrom(0, 0.3, 0.5, 0.9), { nil: undefined }),
});
type Scenario = typeof scenarioArbitrary extends fc.Arbitrary<infer T> ? T : never;

function buildScenarioChain(scenario: Scenario): ChatMessageSimple[] {
  const messages: ChatMessageSimple[] = [];
  scenario.turns.forEach((turn, turnIndex) => {
    const isLast = turnIndex === scenario.turns.length - 1;
    const user = buildUserMessage({
      text: 'question',
      isPinned: turn.pinChance === 0,
      // The newest turn is never excluded, so the anchor is always the last user message.
      isExcluded: !isLast && turn.excludeChance === 0,
      attachments:
        turn.fileTokens === undefined
          ? []
          : [
              buildTextAttachment({
                name: `f${turnIndex}.txt`,
                text: 'file',
                tokenCount: turn.fileTokens,
              }),
            ],
    });
    messages.push({ ...user, textTokenCount: turn.userTokens });
    const steps = turn.toolSteps.map((calls, stepIndex) => ({
      toolCalls: calls.map((call, callIndex) => ({
        id: `t${turnIndex}-${stepIndex}-${callIndex}`,
        name: 'web_search',
        arguments: { query: 'q' },
        status: call.status,
        ...(call.status === 'complete' ? { result: 'r' } : {}),
      })),
    }));
    if (turn.answerTokens !== undefined && !isLast)
      steps.push({ toolCalls: [], text: 'answer' } as never);
    if (steps.length > 0) {
      const assistant = buildAssistantMessage({
        steps,
        isExcluded: turn.excludeChance === 1 && !isLast,
      });
      messages.push({
        ...assistant,
        steps: assistant.steps.map((step) => ({
          ...step,
          textTokenCount: turn.answerTokens ?? step.textTokenCount,
          toolCalls: step.toolCalls.map((call, index) => ({
            ...call,
            ...(call.result
              ? {
                  result: {
                    ...call.result,
                    tokenCount: turn.toolSteps[0]?.[index]?.resultTokens ?? 1,
                  },
                }
              : {}),
          })),
        })),
      });
    }
  });
  return buildChain(messages);
}

function buildInput(
  scenario: Scenario,
  chain: ChatMessageSimple[],
  counter: TokenCounter,
): ContextInput {
  return {
    chain,
    agent: buildAgent({
      prompt: scenario.agentPrompt,
      reminders: scenario.reminders,
      historyStrategy: scenario.strategy,
      ...(scenario.uploadShare !== undefined ? { uploadShare: scenario.uploadShare } : {}),
    }),
    project: null,
    systemPromptOverride: null,
    tools: scenario.hasTools
      ? [buildContextTool({ name: 'web_search', description: 'Searches the web.', isSearch: true })]
      : [],
    hasSearchRunInTurn: scenario.hasSearchRunInTurn,
    isLastCycle: scenario.isLastCycle,
    model: buildModelInfo({
      contextWindow: scenario.contextWindow,
      maxOutputTokens: scenario.maxOutputTokens,
    }),
    providerKind: 'openai',
    clock: buildFrozenClock(),
    tokenCounter: counter,
  };
}

function toolCallIds(message: LlmMessage): string[] {
  return message.role === 'assistant'
    ? message.content.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : []))
    : [];
}

const HISTORY_KINDS = new Set<ContextMessage['kind']>([
  'user',
  'assistant',
  'tool_call',
  'tool_result',
  'file',
]);

describe('assembleContext properties', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await createTokenCounter(['o200k_base']);
  });

  it('keeps every invariant over 1,000 random histories and budgets', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const chain = buildScenarioChain(scenario);
        const result = assembleContext(buildInput(scenario, chain, counter));
        const newestUser = [...chain]
          .reverse()
          .find((message) => message.role === 'user' && !message.isExcluded);

        if (!result.ok) {
          // The only way to lose the newest message is the typed error, which must be honest.
          expect(['context_too_large', 'file_too_large']).toContain(result.error.code);
          if (result.error.code === 'file_too_large')
            expect(result.error.tokens).toBeGreaterThan(result.error.limit);
          if (result.error.code === 'context_too_large') {
            expect(result.error.required).toBeGreaterThan(result.error.available);
            const sum = result.error.parts.reduce((total, part) => total + part.tokens, 0);
            expect(sum).toBe(result.error.required);
          }
          return;
        }
        const context = result.value;
        const messages = context.messages;

        // Never over budget, and the total is the sum of what is sent; with the tools and the
        // answer's reserve it fits the window.
        expect(context.totalTokens).toBeLessThanOrEqual(context.budget.inputBudget);
        expect(
          context.totalTokens + context.budget.toolTokens + context.budget.reservedOutputTokens,
        ).toBeLessThanOrEqual(context.budget.contextWindow);
        expect(messages.reduce((total, item) => total + item.tokens, 0)).toBe(context.totalTokens);

        // S first (not replaced here); R last whenever there is something to remind.
        expect(messages[0]?.kind).toBe('system');
        const hasReminder =
          scenario.reminders.length > 0 || scenario.hasSearchRunInTurn || scenario.isLastCycle;
        expect(messages.at(-1)?.kind === 'reminder').toBe(hasReminder);

        // No tool result without its call right before it.
        messages.forEach((item, index) => {
          if (item.message.role !== 'tool') return;
          const previous = messages[index - 1];
          expect(previous?.kind).toBe('tool_call');
          const callIds = previous ? toolCallIds(previous.message) : [];
          for (const part of item.message.content) expect(callIds).toContain(part.toolCallId);
        });
        // …and no call without its result right after it.
        messages.forEach((item, index) => {
          if (item.kind === 'tool_call') expect(messages[index + 1]?.kind).toBe('tool_result');
        });

        // Order preserved: history messages follow the chain's order.
        const position = new Map(chain.map((message, index) => [message.id as string, index]));
        const order = messages
          .filter((item) => HISTORY_KINDS.has(item.kind) && item.sourceId !== undefined)
          .map((item) => position.get(item.sourceId ?? '') ?? -1);
        expect(order).toEqual([...order].sort((a, b) => a - b));

        // The budget only ever drops the oldest part of the history (pinned messages aside);
        // earlier files have their own share: they may go on their own, or stay with their
        // question when newer messages go, but are never sent without their question.
        const isMessage = (item: { kind: string }): boolean =>
          HISTORY_KINDS.has(item.kind as ContextMessage['kind']) && item.kind !== 'file';
        const withFiles = new Set(
          messages.filter((item) => item.kind === 'file').map((item) => item.sourceId),
        );
        const keptPositions = messages
          .filter((item) => isMessage(item) && item.sourceId !== undefined)
          .filter((item) => !withFiles.has(item.sourceId))
          .filter(
            (item) => chain.find((message) => message.id === item.sourceId)?.isPinned !== true,
          )
          .map((item) => position.get(item.sourceId ?? '') ?? -1);
        const oldestKept = Math.min(...keptPositions);
        for (const item of context.dropped) {
          if (item.reason === 'budget' && isMessage(item))
            expect(position.get(item.sourceId ?? '') ?? -1).toBeLessThanOrEqual(oldestKept);
        }
        messages.forEach((item, index) => {
          if (item.kind !== 'file') return;
          const question = messages[index + 1];
          expect(question?.kind).toBe('user');
          expect(question?.sourceId).toBe(item.sourceId);
        });

        // The skipped markers count the chat's messages that are not sent at all (a question
        // with its files is one message, an answer with all its steps is one).
        const skippedCount = messages
          .filter((item) => item.kind === 'skipped')
          .reduce((total, item) => {
            const text = typeof item.message.content === 'string' ? item.message.content : '';
            return total + Number(/Skipped (\d+)/.exec(text)?.[1] ?? Number.NaN);
          }, 0);
        const sentIds = new Set(messages.map((item) => item.sourceId));
        const leftOut = chain.filter((message) => !message.isExcluded && !sentIds.has(message.id));
        expect(skippedCount).toBe(leftOut.length);

        // The newest user message is present; excluded messages never are; pinned ones always are.
        const sent = new Set(messages.map((item) => item.sourceId));
        expect(sent.has(newestUser?.id)).toBe(true);
        for (const message of chain) {
          if (message.isExcluded) expect(sent.has(message.id)).toBe(false);
          if (message.isPinned && !message.isExcluded) expect(sent.has(message.id)).toBe(true);
        }
      }),
      { numRuns: 1000, seed: 20261121 },
    );
  });
});
