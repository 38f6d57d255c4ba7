import type {
  AssistantStep,
  LlmReasoningPart,
  LlmTextPart,
  LlmToolCallPart,
  LlmToolResultPart,
  MessageId,
  ToolCall,
} from '../../model';
import type { Block, PartEnv } from '../parts/part';
import type { ContextMessage, RequiredPartName } from '../types';

/** Results of earlier turns are replaced by this (seed 001): long, and already used. */
export const EXPIRED_TOOL_RESULT = 'This tool result is no longer available.';
export const CANCELLED_TOOL_RESULT = 'This tool call was cancelled before it returned a result.';
export const INCOMPLETE_TOOL_RESULT = 'This tool call did not complete and returned no result.';

/** Name and id framing of one tool call, priced as a constant so history is never re-tokenized. */
export const TOOL_CALL_OVERHEAD_TOKENS = 8;

function parseArguments(argumentsText: string): unknown {
  try {
    return JSON.parse(argumentsText) as unknown;
  } catch {
    return argumentsText;
  }
}

/**
 * The result the model reads for one call. Every call gets a result (a cancelled or unfinished
 * one says so) so the history never holds an orphan call, which providers reject.
 */
function renderToolResult(
  call: ToolCall,
  isCurrentTurn: boolean,
  env: PartEnv,
): { part: LlmToolResultPart; tokens: number } {
  const base = { type: 'tool-result' as const, toolCallId: call.id, toolName: call.name };
  if (call.status === 'cancelled') {
    return {
      part: { ...base, output: CANCELLED_TOOL_RESULT, isError: true },
      tokens: env.meter.countText(CANCELLED_TOOL_RESULT),
    };
  }
  if (call.result === undefined) {
    return {
      part: { ...base, output: INCOMPLETE_TOOL_RESULT, isError: true },
      tokens: env.meter.countText(INCOMPLETE_TOOL_RESULT),
    };
  }
  if (!isCurrentTurn) {
    return {
      part: { ...base, output: EXPIRED_TOOL_RESULT },
      tokens: env.meter.countText(EXPIRED_TOOL_RESULT),
    };
  }
  return {
    part: {
      ...base,
      output: call.result.content,
      ...(call.result.isError ? { isError: true } : {}),
    },
    tokens: call.result.tokenCount,
  };
}

/**
 * Assistant steps as blocks: a step with tool calls is an assistant message with tool-call
 * parts followed by a `tool` message with their results, in one block; a final step is one
 * assistant message. Reasoning is sent back only within the current turn, where providers
 * need it (thinking signatures) to continue after a tool call.
 */
export function renderAssistantSteps(
  steps: readonly AssistantStep[],
  sourceId: MessageId | undefined,
  isCurrentTurn: boolean,
  env: PartEnv,
  part: RequiredPartName,
  isRequired: boolean,
): Block[] {
  const blocks: Block[] = [];
  for (const step of steps) {
    const content: Array<LlmTextPart | LlmReasoningPart | LlmToolCallPart> = [];
    let contentTokens = 0;
    if (
      isCurrentTurn &&
      step.reasoning &&
      (step.reasoning.text.length > 0 || step.reasoning.providerState)
    ) {
      content.push({
        type: 'reasoning',
        text: step.reasoning.text,
        ...(step.reasoning.providerState ? { providerState: step.reasoning.providerState } : {}),
      });
      contentTokens += step.reasoning.tokenCount;
    }
    const text = env.removeFromText(step.text);
    if (text.length > 0) {
      content.push({ type: 'text', text });
      // The stored count is of the text before display artifacts were removed: an upper bound.
      contentTokens += step.textTokenCount;
    }
    for (const call of step.toolCalls) {
      content.push({
        type: 'tool-call',
        toolCallId: call.id,
        toolName: call.name,
        input: parseArguments(call.argumentsText),
        ...(call.providerState ? { providerState: call.providerState } : {}),
      });
      contentTokens += call.argumentsTokenCount + TOOL_CALL_OVERHEAD_TOKENS;
    }
    const hasText = content.some((item) => item.type === 'text');
    if (step.toolCalls.length === 0 && !hasText) continue;

    const assistantMessage: ContextMessage = {
      kind: step.toolCalls.length > 0 ? 'tool_call' : 'assistant',
      tokens: env.meter.priceMessage(contentTokens),
      message: { role: 'assistant', content },
      ...(sourceId ? { sourceId } : {}),
    };
    const messages: ContextMessage[] = [assistantMessage];
    if (step.toolCalls.length > 0) {
      const results = step.toolCalls.map((call) => renderToolResult(call, isCurrentTurn, env));
      let resultTokens = 0;
      for (const result of results) resultTokens += result.tokens;
      messages.push({
        kind: 'tool_result',
        tokens: env.meter.priceMessage(resultTokens),
        message: { role: 'tool', content: results.map((result) => result.part) },
        ...(sourceId ? { sourceId } : {}),
      });
    }
    let tokens = 0;
    for (const message of messages) tokens += message.tokens;
    blocks.push({
      messages,
      tokens,
      part,
      isRequired,
      isConversation: true,
      ...(sourceId ? { sourceId } : {}),
      files: [],
    });
  }
  return blocks;
}
