import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  assembleContext,
  describeOmittedResult,
  renderNumberedDocuments,
  type ContextInput,
} from '../../../../src/core/context';
import type { AssistantStep, ChatMessageSimple, ToolCall } from '../../../../src/core/model';
import type { TokenCounter } from '../../../../src/core/ports';
import { createTokenCounter } from '../../../../src/core/tokens';
import {
  buildAgent,
  buildAssistantMessage,
  buildChain,
  buildContextTool,
  buildFrozenClock,
  buildModelInfo,
  buildUserMessage,
} from '../../../builders';

/**
 * A turn in progress whose tool results (search results with real documents, plain texts) may
 * not fit, over random budgets: the request is reduced rather than refused whenever its results
 * could shrink enough, and what is sent stays consistent.
 */

const WORDS = ['harbour', 'ledger', 'quartz', 'Lisbon', 'rain', 'été', '数据', '🙂', 'spline'];

const textArbitrary = (maxWords: number) =>
  fc
    .array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: maxWords })
    .map((words) => words.join(' '));

const callArbitrary = fc.oneof(
  fc.record({
    kind: fc.constant('documents' as const),
    documents: fc.array(textArbitrary(120), { minLength: 1, maxLength: 6 }),
  }),
  fc.record({ kind: fc.constant('text' as const), text: textArbitrary(600) }),
);

const scenarioArbitrary = fc.record({
  question: textArbitrary(40),
  history: fc.array(textArbitrary(60), { maxLength: 4 }),
  steps: fc.array(fc.array(callArbitrary, { minLength: 1, maxLength: 3 }), {
    minLength: 1,
    maxLength: 3,
  }),
  contextWindow: fc.integer({ min: 600, max: 9000 }),
  maxOutputTokens: fc.integer({ min: 50, max: 400 }),
});
type Scenario = typeof scenarioArbitrary extends fc.Arbitrary<infer T> ? T : never;

interface Built {
  input: ContextInput;
  /** The citation numbers of each documents call, in rank order. */
  numbers: Map<string, number[]>;
}

function buildScenario(scenario: Scenario, counter: TokenCounter, floor = false): Built {
  const count = (text: string): number => counter.count(text);
  const chain: ChatMessageSimple[] = [];
  scenario.history.forEach((text, index) => {
    chain.push({ ...buildUserMessage({ text: `Earlier ${index}` }), textTokenCount: 3 });
    chain.push(buildAssistantMessage({ steps: [{ text }] }));
  });
  chain.push({ ...buildUserMessage({ text: scenario.question }), textTokenCount: count(scenario.question) });
  const numbers = new Map<string, number[]>();
  let next = 1;
  const turnSteps: AssistantStep[] = scenario.steps.map((calls, stepIndex) => ({
    text: '',
    textTokenCount: 0,
    toolCalls: calls.map((spec, callIndex): ToolCall => {
      const id = `call-${stepIndex}-${callIndex}`;
      let content: string;
      let documents: Array<{ number: number; title: string }> | undefined;
      if (spec.kind === 'documents') {
        const numbered = spec.documents.map((contents, rank) => ({
          number: next + rank,
          title: `Source ${next + rank}`,
          contents,
        }));
        next += numbered.length;
        numbers.set(id, numbered.map((doc) => doc.number));
        content = renderNumberedDocuments(numbered);
        documents = numbered.map(({ number, title }) => ({ number, title }));
      } else {
        content = spec.text;
      }
      // The floor: what the reducer can at most come down to for this result.
      if (floor) content = describeOmittedResult(count(content));
      return {
        id,
        name: spec.kind === 'documents' ? 'search_project' : 'open_url',
        argumentsText: '{"query":"q"}',
        argumentsTokenCount: 5,
        status: 'complete',
        result: {
          content,
          tokenCount: count(content),
          isError: false,
          ...(documents && !floor ? { documents } : {}),
        },
      };
    }),
  }));
  return {
    numbers,
    input: {
      chain: buildChain(chain),
      turnSteps,
      agent: buildAgent(),
      project: null,
      systemPromptOverride: null,
      tools: [buildContextTool({ name: 'search_project', description: 'Searches.', isSearch: true })],
      hasSearchRunInTurn: true,
      isLastCycle: false,
      model: buildModelInfo({
        contextWindow: scenario.contextWindow,
        maxOutputTokens: scenario.maxOutputTokens,
      }),
      providerKind: 'openai',
      clock: buildFrozenClock(),
      tokenCounter: counter,
    },
  };
}

function documentNumbers(output: string): number[] {
  return [...output.matchAll(/^\{"document":(\d+),/gm)].map((match) => Number(match[1]));
}

describe('reducing the newest turn', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await createTokenCounter(['o200k_base']);
  });

  it('sends the turn reduced rather than failing, within budget, citations intact', () => {
    const seen = { refused: 0, sourcesDropped: 0, truncated: 0 };
    fc.assert(
      fc.property(scenarioArbitrary, (scenario) => {
        const { input, numbers } = buildScenario(scenario, counter);
        const result = assembleContext(input);
        if (!result.ok) {
          // Refused only when even the shortest form of every result would not fit.
          const floor = assembleContext(buildScenario(scenario, counter, true).input);
          expect(result.error.code).toBe('context_too_large');
          expect(floor.ok).toBe(false);
          seen.refused++;
          return;
        }
        const context = result.value;
        for (const item of context.reductions) {
          if (item.droppedDocuments !== undefined) seen.sourcesDropped++;
          if (item.kind === 'truncated') seen.truncated++;
        }
        expect(context.totalTokens).toBeLessThanOrEqual(context.budget.inputBudget);
        expect(
          context.totalTokens + context.budget.toolTokens + context.budget.reservedOutputTokens,
        ).toBeLessThanOrEqual(context.budget.contextWindow);
        expect(context.messages.reduce((sum, item) => sum + item.tokens, 0)).toBe(
          context.totalTokens,
        );

        // The question is sent as written, every call has its result right after it.
        const newest = input.chain.at(-1);
        expect(context.messages.some((item) => item.sourceId === newest?.id)).toBe(true);
        const results = context.messages.flatMap((item) =>
          item.message.role === 'tool' ? item.message.content : [],
        );
        const calls = (input.turnSteps ?? []).flatMap((step) => step.toolCalls);
        expect(results.map((part) => part.toolCallId)).toEqual(calls.map((call) => call.id));

        const reduced = new Set(context.reductions.map((item) => item.toolCallId));
        for (const part of results) {
          const call = calls.find((item) => item.id === part.toolCallId);
          const stored = call?.result?.content ?? '';
          if (!reduced.has(part.toolCallId)) {
            expect(part.output).toBe(stored);
            continue;
          }
          expect(part.output).not.toBe(stored);
          const ranked = numbers.get(part.toolCallId);
          if (ranked === undefined || part.output.startsWith('[This result')) continue;
          // Documents keep their numbers and their rank order, the best ones first, and at
          // least one stays; each kept document is its stored line or a truncated one.
          const kept = documentNumbers(part.output);
          expect(kept.length).toBeGreaterThanOrEqual(1);
          expect(kept).toEqual(ranked.slice(0, kept.length));
          const storedLines = stored.split('\n');
          for (const number of kept) {
            const sent = part.output.split('\n').find((line) => line.startsWith(`{"document":${number},`));
            const original = storedLines.find((line) => line.startsWith(`{"document":${number},`));
            const parsedSent = JSON.parse((sent ?? '').replace(/,$/, '')) as { contents: string };
            const parsedOriginal = JSON.parse((original ?? '').replace(/,$/, '')) as { contents: string };
            if (parsedSent.contents !== parsedOriginal.contents) {
              expect(parsedSent.contents).toMatch(/\[Truncated to fit the context/);
              const head = parsedSent.contents.split('\n\n[Truncated')[0] ?? '';
              expect(parsedOriginal.contents.startsWith(head)).toBe(true);
            }
          }
        }
      }),
      { numRuns: 150, seed: 2211 },
    );
    // The runs cover every outcome, so none of the checks above is vacuous.
    expect(seen.refused).toBeGreaterThan(0);
    expect(seen.sourcesDropped).toBeGreaterThan(0);
    expect(seen.truncated).toBeGreaterThan(0);
  });
});
