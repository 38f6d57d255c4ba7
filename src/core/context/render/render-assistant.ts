import type {
  AssistantStep,
  LlmReasoningPart,
  LlmTextPart,
  LlmToolCallPart,
  LlmToolResultPart,
  MessageId,
  ToolCall,
} from '../../model';
import type { BlockPricing } from '../parts/block-pricing';
import {
  ConversationBlock,
  NO_FILES,
  type Block,
  type CallOverride,
  type PricedMessage,
  type StepCalls,
} from '../parts/part';
import type { ContextMessage, RequiredPartName } from '../types';

/** Results of earlier turns are replaced by this: long, and already used. */
export const EXPIRED_TOOL_RESULT = 'This tool result is no longer available.';
export const CANCELLED_TOOL_RESULT = 'This tool call was cancelled before it returned a result.';
export const INCOMPLETE_TOOL_RESULT = 'This tool call did not complete and returned no result.';

/** What a cleared call's arguments are sent as. */
export const CLEARED_ARGUMENTS = {};
const CLEARED_ARGUMENTS_TEXT = JSON.stringify(CLEARED_ARGUMENTS);

const NO_OVERRIDES: ReadonlyMap<string, CallOverride> = new Map();

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
 * What the model reads instead of a call's stored result, or null when it reads the result
 * itself. Every call gets a result (a cancelled or unfinished one says so) so the history never
 * holds an orphan call, which providers reject.
 */
function findPlaceholder(call: ToolCall, isCurrentTurn: boolean): string | null {
  if (call.status === 'cancelled') return CANCELLED_TOOL_RESULT;
  if (call.result === undefined) return INCOMPLETE_TOOL_RESULT;
  return isCurrentTurn ? null : EXPIRED_TOOL_RESULT;
}

function renderToolResult(
  call: ToolCall,
  isCurrentTurn: boolean,
  override: CallOverride | undefined,
): LlmToolResultPart {
  if (override?.output !== undefined) {
    return {
      type: 'tool-result',
      toolCallId: call.id,
      toolName: call.name,
      output: override.output,
      ...(call.result?.isError === true ? { isError: true } : {}),
    };
  }
  const placeholder = findPlaceholder(call, isCurrentTurn);
  const isError =
    placeholder === null ? call.result?.isError === true : placeholder !== EXPIRED_TOOL_RESULT;
  return {
    type: 'tool-result',
    toolCallId: call.id,
    toolName: call.name,
    output: placeholder ?? call.result?.content ?? '',
    ...(isError ? { isError: true } : {}),
  };
}

/** Stored counts for results of this turn; the fixed placeholders counted (once per request). */
function priceToolResults(
  calls: readonly ToolCall[],
  isCurrentTurn: boolean,
  env: BlockPricing,
  overrides: ReadonlyMap<string, CallOverride>,
): number {
  let tokens = 0;
  for (const call of calls) {
    const override = overrides.get(call.id);
    if (override?.output !== undefined) {
      tokens += override.outputTokens ?? env.meter.countText(override.output);
      continue;
    }
    const placeholder = findPlaceholder(call, isCurrentTurn);
    tokens +=
      placeholder === null ? (call.result?.tokenCount ?? 0) : env.meter.countText(placeholder);
  }
  return tokens;
}

function hasReasoningToSend(
  step: AssistantStep,
  isCurrentTurn: boolean,
  env: BlockPricing,
): boolean {
  return (
    (isCurrentTurn || env.shouldSendPastReasoning) &&
    step.reasoning !== undefined &&
    (step.reasoning.text.length > 0 || step.reasoning.providerState !== undefined)
  );
}

/**
 * One step: an assistant message with tool-call parts followed by a `tool` message with their
 * results (one block, so nothing separates them), or a final step's assistant message alone.
 * Priced from stored counts; stripped of display artifacts and built only if it is sent.
 */
class StepBlock extends ConversationBlock {
  readonly tokens: number;
  readonly messageCount: number;
  readonly sourceId: MessageId | undefined;
  readonly files = NO_FILES;
  readonly isUser = false;
  readonly isUpload = false;
  readonly stepCalls: StepCalls | undefined;
  readonly #step: AssistantStep;
  readonly #isCurrentTurn: boolean;
  readonly #env: BlockPricing;
  readonly #overrides: ReadonlyMap<string, CallOverride>;
  readonly #callTokens: number;
  readonly #resultTokens: number;

  constructor(
    step: AssistantStep,
    hasText: boolean,
    sourceId: MessageId | undefined,
    isCurrentTurn: boolean,
    env: BlockPricing,
    part: RequiredPartName,
    isRequired: boolean,
    overrides: ReadonlyMap<string, CallOverride> = NO_OVERRIDES,
  ) {
    super(part, isRequired);
    // Everything but the calls' arguments, which clearing can change.
    let fixedTokens = 0;
    if (step.reasoning && hasReasoningToSend(step, isCurrentTurn, env))
      fixedTokens += step.reasoning.tokenCount;
    // The stored count is of the text before display artifacts were removed: an upper bound.
    if (hasText) fixedTokens += step.textTokenCount;
    const argumentsTokens = (call: ToolCall): number =>
      overrides.get(call.id)?.isArgumentsCleared === true
        ? env.meter.countText(CLEARED_ARGUMENTS_TEXT)
        : call.argumentsTokenCount;
    let contentTokens = fixedTokens;
    for (const call of step.toolCalls) {
      fixedTokens += TOOL_CALL_OVERHEAD_TOKENS;
      contentTokens += argumentsTokens(call) + TOOL_CALL_OVERHEAD_TOKENS;
    }
    const hasCalls = step.toolCalls.length > 0;
    let clearedArgumentsTokens: number | undefined;
    this.#callTokens = env.meter.priceMessage(contentTokens);
    const resultTokens = hasCalls
      ? env.meter.priceMessage(priceToolResults(step.toolCalls, isCurrentTurn, env, overrides))
      : 0;
    this.#resultTokens = resultTokens;
    this.tokens = this.#callTokens + this.#resultTokens;
    this.messageCount = hasCalls ? 2 : 1;
    this.sourceId = sourceId;
    this.#step = step;
    this.#isCurrentTurn = isCurrentTurn;
    this.#env = env;
    this.#overrides = overrides;
    this.stepCalls = hasCalls
      ? {
          calls: step.toolCalls,
          isCurrentTurn,
          overrides,
          adjust: (next) =>
            new StepBlock(step, hasText, sourceId, isCurrentTurn, env, part, isRequired, next),
          priceRange: (isClearable) => {
            // Counted once per block, not on every request that walks past it: the shared
            // meter's memo moves a text to its recent end on every read.
            clearedArgumentsTokens ??= env.meter.countText(CLEARED_ARGUMENTS_TEXT);
            const cleared = clearedArgumentsTokens;
            let least = fixedTokens;
            let most = fixedTokens;
            for (const call of step.toolCalls) {
              const sent = argumentsTokens(call);
              const other = isClearable(call) ? cleared : sent;
              least += Math.min(sent, other);
              most += Math.max(sent, other);
            }
            return {
              least: env.meter.priceMessage(least) + resultTokens,
              most: env.meter.priceMessage(most) + resultTokens,
            };
          },
        }
      : undefined;
  }

  price(): PricedMessage[] {
    if (this.messageCount === 1) return [{ kind: 'assistant', tokens: this.#callTokens }];
    return [
      { kind: 'tool_call', tokens: this.#callTokens },
      { kind: 'tool_result', tokens: this.#resultTokens },
    ];
  }

  #withSource(message: ContextMessage): ContextMessage {
    if (this.sourceId) message.sourceId = this.sourceId;
    return message;
  }

  /** The inspector's note on a result sent differently from what is stored. */
  #label(): { label?: string } {
    const labels: string[] = [];
    for (const override of this.#overrides.values())
      if (override.label !== undefined) labels.push(override.label);
    return labels.length > 0 ? { label: labels.join('; ') } : {};
  }

  render(): ContextMessage[] {
    const step = this.#step;
    const isCurrentTurn = this.#isCurrentTurn;
    const content: Array<LlmTextPart | LlmReasoningPart | LlmToolCallPart> = [];
    if (step.reasoning && hasReasoningToSend(step, isCurrentTurn, this.#env)) {
      content.push({
        type: 'reasoning',
        text: step.reasoning.text,
        ...(step.reasoning.providerState ? { providerState: step.reasoning.providerState } : {}),
      });
    }
    const text = this.#env.removeFromText(step.text);
    if (text.length > 0) content.push({ type: 'text', text });
    for (const call of step.toolCalls) {
      const isCleared = this.#overrides.get(call.id)?.isArgumentsCleared === true;
      content.push({
        type: 'tool-call',
        toolCallId: call.id,
        toolName: call.name,
        input: isCleared ? CLEARED_ARGUMENTS : parseArguments(call.argumentsText),
        ...(call.providerState ? { providerState: call.providerState } : {}),
      });
    }
    const messages: ContextMessage[] = [
      this.#withSource({
        kind: this.messageCount === 1 ? 'assistant' : 'tool_call',
        tokens: this.#callTokens,
        message: { role: 'assistant', content },
      }),
    ];
    if (this.messageCount === 2) {
      messages.push(
        this.#withSource({
          kind: 'tool_result',
          tokens: this.#resultTokens,
          message: {
            role: 'tool',
            content: step.toolCalls.map((item) =>
              renderToolResult(item, isCurrentTurn, this.#overrides.get(item.id)),
            ),
          },
          ...this.#label(),
        }),
      );
    }
    return messages;
  }
}

/**
 * Assistant steps as blocks, appended to `blocks`. Reasoning is sent back within the current
 * turn, where providers need it (thinking signatures) to continue after a tool call, and from
 * earlier turns only when the agent asks for it.
 * A step with neither text (once display artifacts are removed) nor tool calls sends nothing.
 */
export function priceAssistantSteps(
  steps: readonly AssistantStep[],
  sourceId: MessageId | undefined,
  isCurrentTurn: boolean,
  env: BlockPricing,
  part: RequiredPartName,
  isRequired: boolean,
  blocks: Block[],
): void {
  for (const step of steps) {
    const hasText = env.hasTextAfterRemoval(step.text);
    if (step.toolCalls.length === 0 && !hasText) continue;
    blocks.push(new StepBlock(step, hasText, sourceId, isCurrentTurn, env, part, isRequired));
  }
}
