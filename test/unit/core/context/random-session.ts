import fc from 'fast-check';
import { FOLLOW_UPS_MARKER, type ContextInput } from '../../../../src/core/context';
import {
  asFileId,
  type AssistantStep,
  type Attachment,
  type ChatMessageSimple,
  type HistoryStrategy,
  type ToolCall,
} from '../../../../src/core/model';
import type { TokenCounter } from '../../../../src/core/ports';
import {
  buildAgent,
  buildAssistantMessage,
  buildChain,
  buildContextTool,
  buildFrozenClock,
  buildModelInfo,
  buildUserMessage,
  SAMPLE_IMAGE_DATA_URL,
} from '../../../builders';

/**
 * Random sessions for the context engine's equivalence tests: every kind of block (files with
 * every status, images with and without vision, tool calls in every state, reasoning, answers
 * that are only display artifacts), pinned and excluded messages, a turn in progress, every
 * strategy and budgets from "nothing fits" to "everything fits". Stored token counts are drawn
 * at random (the engine trusts them), so one run covers tiny and huge messages.
 */

/** File names and ids with the characters that could upset a marker or a count. */
const FILE_NAMES = [
  'notes.md',
  'a b.txt',
  'Ünïcödé.csv',
  'x,y.json',
  'quote".txt',
  'line\nbreak.md',
];

const fileArbitrary = fc.record({
  name: fc.constantFrom(...FILE_NAMES),
  tokens: fc.integer({ min: 0, max: 900 }),
  status: fc.constantFrom<Attachment['status']>('ready', 'ready', 'processing', 'no_text', 'error'),
  hasText: fc.boolean(),
});

const imageArbitrary = fc.record({
  width: fc.integer({ min: 1, max: 3000 }),
  height: fc.integer({ min: 1, max: 3000 }),
  hasData: fc.boolean(),
});

const callArbitrary = fc.record({
  status: fc.constantFrom<ToolCall['status']>('complete', 'error', 'cancelled', 'pending'),
  hasResult: fc.boolean(),
  resultTokens: fc.integer({ min: 0, max: 500 }),
  argumentsTokens: fc.integer({ min: 0, max: 60 }),
  isError: fc.boolean(),
  documents: fc.integer({ min: 0, max: 3 }),
});

/** Answer texts, including ones that are nothing but what the app added for display. */
const ANSWER_TEXTS = [
  'An answer.',
  'See [[1]](https://example.com/a) and [2](https://example.com/b).',
  '',
  `${FOLLOW_UPS_MARKER}\n- a follow-up`,
  `  \n${FOLLOW_UPS_MARKER}`,
  `Kept. ${FOLLOW_UPS_MARKER} gone`,
  '   ',
];

const stepArbitrary = fc.record({
  text: fc.constantFrom(...ANSWER_TEXTS),
  textTokens: fc.integer({ min: 0, max: 400 }),
  calls: fc.array(callArbitrary, { maxLength: 2 }),
  reasoning: fc.option(
    fc.record({ tokens: fc.integer({ min: 0, max: 200 }), hasState: fc.boolean() }),
    { nil: undefined },
  ),
});

const turnArbitrary = fc.record({
  text: fc.constantFrom('A question?', '', '  '),
  textTokens: fc.integer({ min: 1, max: 400 }),
  files: fc.array(fileArbitrary, { maxLength: 2 }),
  images: fc.array(imageArbitrary, { maxLength: 1 }),
  isUserPinned: fc.integer({ min: 0, max: 7 }).map((roll) => roll === 0),
  isUserExcluded: fc.integer({ min: 0, max: 7 }).map((roll) => roll === 0),
  steps: fc.array(stepArbitrary, { maxLength: 3 }),
  isAnswerPinned: fc.integer({ min: 0, max: 9 }).map((roll) => roll === 0),
  isAnswerExcluded: fc.integer({ min: 0, max: 9 }).map((roll) => roll === 0),
});

export const strategyArbitrary: fc.Arbitrary<HistoryStrategy> = fc.oneof(
  fc.constant({ kind: 'auto' as const }),
  fc.constant({ kind: 'unbounded' as const }),
  fc.integer({ min: 0, max: 12 }).map((size) => ({ kind: 'buffered' as const, size })),
  fc
    .tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 }))
    .map(([head, tail]) => ({ kind: 'head_and_tail' as const, head, tail })),
  fc
    .integer({ min: 0, max: 3000 })
    .map((maxTokens) => ({ kind: 'token_limited' as const, maxTokens })),
  fc.integer({ min: 1, max: 6 }).map((turns) => ({ kind: 'last_turns' as const, turns })),
  fc
    .record({
      triggerTokens: fc.integer({ min: 1, max: 3000 }),
      keep: fc.integer({ min: 0, max: 3 }),
      excludeTools: fc.subarray(['web_search', 'open_url']),
      shouldClearArguments: fc.boolean(),
    })
    .map((options) => ({ kind: 'clear_tool_results' as const, ...options })),
);

export const sessionArbitrary = fc.record({
  turns: fc.array(turnArbitrary, { minLength: 1, maxLength: 12 }),
  /** Steps of the turn being answered that the agent loop has not stored yet. */
  turnSteps: fc.array(stepArbitrary, { maxLength: 2 }),
  contextWindow: fc.integer({ min: 200, max: 12_000 }),
  maxOutputTokens: fc.integer({ min: 50, max: 1_000 }),
  strategy: strategyArbitrary,
  tools: fc.constantFrom('none', 'search', 'search_and_read_file'),
  hasVision: fc.boolean(),
  calibrationFactor: fc.constantFrom(undefined, 1, 1.37, 0.8),
  hasCustomRemoval: fc.boolean(),
  reminders: fc.array(fc.constantFrom('Be brief.', 'Answer in French.'), { maxLength: 2 }),
  isLastCycle: fc.boolean(),
  /** The agent's share for uploads; undefined for the default. */
  uploadShare: fc.option(fc.constantFrom(0, 0.2, 0.5, 0.9), { nil: undefined }),
});
export type RandomSession = typeof sessionArbitrary extends fc.Arbitrary<infer T> ? T : never;

type StepSpec = RandomSession['turns'][number]['steps'][number];

function buildAttachments(turn: RandomSession['turns'][number], turnIndex: number): Attachment[] {
  const files = turn.files.map((file, index): Attachment => ({
    fileId: asFileId(`file-${turnIndex}-${index}, ${file.name}`),
    name: file.name,
    mimeType: 'text/plain',
    kind: 'text',
    sizeBytes: 10,
    tokenCount: file.tokens,
    status: file.status,
    ...(file.hasText ? { text: 'file text' } : {}),
    ...(file.status === 'error' ? { error: 'bad bytes' } : {}),
  }));
  const images = turn.images.map((image, index): Attachment => ({
    fileId: asFileId(`image-${turnIndex}-${index}`),
    name: `photo ${index}.png`,
    mimeType: 'image/png',
    kind: 'image',
    sizeBytes: image.width * image.height,
    tokenCount: 85,
    status: 'ready',
    image: {
      width: image.width,
      height: image.height,
      ...(image.hasData ? { dataUrl: SAMPLE_IMAGE_DATA_URL } : {}),
    },
  }));
  return [...files, ...images];
}

function buildSteps(specs: readonly StepSpec[], prefix: string): AssistantStep[] {
  let documentNumber = 0;
  return specs.map((spec, stepIndex) => ({
    text: spec.text,
    textTokenCount: spec.textTokens,
    toolCalls: spec.calls.map((call, callIndex): ToolCall => {
      const id = `${prefix}-${stepIndex}-${callIndex}`;
      return {
        id,
        name: callIndex === 0 ? 'web_search' : 'open_url',
        argumentsText: callIndex === 0 ? '{"query":"q"}' : 'not json',
        argumentsTokenCount: call.argumentsTokens,
        status: call.status,
        ...(call.hasResult
          ? {
              result: {
                content: `result of ${id}`,
                tokenCount: call.resultTokens,
                isError: call.isError,
                documents: Array.from({ length: call.documents }, () => ({
                  number: ++documentNumber,
                  title: `Document ${documentNumber}`,
                })),
              },
            }
          : {}),
      };
    }),
    ...(spec.reasoning
      ? {
          reasoning: {
            text: spec.reasoning.tokens > 0 ? 'thinking' : '',
            tokenCount: spec.reasoning.tokens,
            ...(spec.reasoning.hasState ? { providerState: { signature: 'sig' } } : {}),
          },
        }
      : {}),
  }));
}

/** The chain, oldest first; the last turn is the one being answered (never excluded). */
export function buildSessionChain(session: RandomSession): ChatMessageSimple[] {
  const messages: ChatMessageSimple[] = [];
  session.turns.forEach((turn, turnIndex) => {
    const isNewest = turnIndex === session.turns.length - 1;
    messages.push({
      ...buildUserMessage({
        text: turn.text,
        attachments: buildAttachments(turn, turnIndex),
        isPinned: turn.isUserPinned,
        isExcluded: !isNewest && turn.isUserExcluded,
      }),
      textTokenCount: turn.textTokens,
    });
    if (turn.steps.length === 0) return;
    messages.push({
      ...buildAssistantMessage({
        steps: [],
        isPinned: turn.isAnswerPinned,
        isExcluded: !isNewest && turn.isAnswerExcluded,
      }),
      steps: buildSteps(turn.steps, `t${turnIndex}`),
    });
  });
  return buildChain(messages);
}

export function buildSessionInput(session: RandomSession, counter: TokenCounter): ContextInput {
  const searchTool = buildContextTool({
    name: 'web_search',
    description: 'Searches the web.',
    isSearch: true,
  });
  const readFileTool = buildContextTool({ name: 'read_file', description: 'Reads a file.' });
  return {
    chain: buildSessionChain(session),
    turnSteps: buildSteps(session.turnSteps, 'now'),
    agent: buildAgent({
      reminders: session.reminders,
      historyStrategy: session.strategy,
      ...(session.uploadShare !== undefined ? { uploadShare: session.uploadShare } : {}),
    }),
    project: null,
    systemPromptOverride: null,
    tools:
      session.tools === 'none'
        ? []
        : session.tools === 'search'
          ? [searchTool]
          : [searchTool, readFileTool],
    hasSearchRunInTurn: false,
    isLastCycle: session.isLastCycle,
    model: buildModelInfo({
      contextWindow: session.contextWindow,
      maxOutputTokens: session.maxOutputTokens,
      hasVision: session.hasVision,
    }),
    providerKind: 'openai',
    ...(session.calibrationFactor !== undefined
      ? { calibrationFactor: session.calibrationFactor }
      : {}),
    ...(session.hasCustomRemoval
      ? { removeFromText: (text: string) => text.replaceAll('answer', '').trim() }
      : {}),
    clock: buildFrozenClock(),
    tokenCounter: counter,
  };
}
