import type { ContextInput } from '../../../src/core/context';
import type { AssistantStep, ChatMessageSimple, ToolCall } from '../../../src/core/model';
import {
  buildAgent,
  buildAssistantMessage,
  buildChain,
  buildContextTool,
  buildFrozenClock,
  buildModelInfo,
  buildTextAttachment,
  buildUserMessage,
  countStoredTokens,
} from '../../builders';
import { createRandom } from './stats';
import { createCode, createProse } from './synthetic-text';

/** Long synthetic sessions for the context-assembly bench (and its profile runs). */

export const CONTEXT_WINDOW = 128_000;
/** Every n-th assistant message calls a search tool; every n-th user message carries a file. */
export const TOOL_CALL_EVERY = 4;
export const FILE_EVERY = 10;

export function buildSession(size: number): ChatMessageSimple[] {
  const random = createRandom(size);
  const messages: ChatMessageSimple[] = [];
  for (let index = 0; index < size; index++) {
    const turn = Math.floor(index / 2);
    if (index % 2 === 0) {
      const hasFile = turn % FILE_EVERY === FILE_EVERY - 1;
      messages.push(
        buildUserMessage({
          text: createProse(random, 20 + Math.floor(random() * 60)),
          attachments: hasFile
            ? [buildTextAttachment({ name: `notes-${turn}.md`, text: createCode(random, 60) })]
            : [],
        }),
      );
      continue;
    }
    const hasTool = turn % TOOL_CALL_EVERY === TOOL_CALL_EVERY - 1;
    messages.push(
      buildAssistantMessage({
        steps: [
          ...(hasTool
            ? [
                {
                  text: '',
                  toolCalls: [
                    {
                      id: `call-${turn}`,
                      name: 'search_web',
                      arguments: { query: createProse(random, 6) },
                      result: createProse(random, 200),
                      documents: [1, 2],
                    },
                  ],
                },
              ]
            : []),
          { text: createProse(random, 60 + Math.floor(random() * 140)) },
        ],
      }),
    );
  }
  // The turn being answered ends the chain.
  if (messages[messages.length - 1]?.role !== 'user')
    messages.push(buildUserMessage({ text: 'Summarize what we decided.' }));
  return buildChain(messages);
}

export function buildInput(
  chain: ChatMessageSimple[],
  input: Pick<ContextInput, 'tokenCounter'>,
): ContextInput {
  return {
    chain,
    agent: buildAgent(),
    project: null,
    systemPromptOverride: null,
    tools: [
      buildContextTool({ name: 'search_web', description: 'Search the web.', isSearch: true }),
    ],
    hasSearchRunInTurn: false,
    isLastCycle: false,
    model: buildModelInfo({ contextWindow: CONTEXT_WINDOW }),
    providerKind: 'openai',
    clock: buildFrozenClock(),
    tokenCounter: input.tokenCounter,
  };
}

function recountToolCall(call: ToolCall): ToolCall {
  return {
    ...call,
    argumentsTokenCount: countStoredTokens(call.argumentsText),
    ...(call.result
      ? { result: { ...call.result, tokenCount: countStoredTokens(call.result.content) } }
      : {}),
  };
}

function recountStep(step: AssistantStep): AssistantStep {
  return {
    ...step,
    textTokenCount: countStoredTokens(step.text),
    toolCalls: step.toolCalls.map(recountToolCall),
    ...(step.reasoning
      ? { reasoning: { ...step.reasoning, tokenCount: countStoredTokens(step.reasoning.text) } }
      : {}),
  };
}

/** What assembly would cost without stored counts: every text tokenized again, every cycle. */
export function recountMessage(message: ChatMessageSimple): ChatMessageSimple {
  if (message.role === 'assistant') return { ...message, steps: message.steps.map(recountStep) };
  return {
    ...message,
    textTokenCount: countStoredTokens(message.text),
    attachments: message.attachments.map((attachment) =>
      attachment.text === undefined
        ? attachment
        : { ...attachment, tokenCount: countStoredTokens(attachment.text) },
    ),
  };
}
