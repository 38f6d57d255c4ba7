import type { LanguageModelUsage, TextStreamPart, ToolSet } from 'ai';
import type { FinishReason, LlmError, LlmEvent, Usage } from '../core/model';
import type { WireApi } from './create-language-model';

export type StreamPart = TextStreamPart<ToolSet>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Did this raw provider chunk close the response properly? The AI SDK reports a stream that
 * stopped early as finish "other" with no usage, indistinguishable from an odd finish reason,
 * so we look for each protocol's own final event instead.
 */
export function isTerminalRawChunk(wireApi: WireApi, raw: unknown): boolean {
  if (!isRecord(raw)) return false;
  switch (wireApi) {
    case 'anthropic':
      return raw.type === 'message_stop';
    case 'openai-responses':
      return (
        raw.type === 'response.completed' ||
        raw.type === 'response.incomplete' ||
        raw.type === 'response.failed'
      );
    case 'google': {
      const candidates = Array.isArray(raw.candidates) ? raw.candidates : [];
      return candidates.some(
        (candidate) => isRecord(candidate) && typeof candidate.finishReason === 'string',
      );
    }
    case 'openai-chat':
    case 'openai-compatible': {
      const choices = Array.isArray(raw.choices) ? raw.choices : [];
      return choices.some((choice) => isRecord(choice) && typeof choice.finish_reason === 'string');
    }
  }
}

/** A Gemini chunk that blocks the prompt outright (no candidates, no finish reason). */
export function readPromptBlock(raw: unknown): unknown {
  if (!isRecord(raw) || !isRecord(raw.promptFeedback)) return undefined;
  return typeof raw.promptFeedback.blockReason === 'string' ? raw : undefined;
}

/** @ai-sdk/openai-compatible's own report of a stream that stopped before its finish chunk. */
function isTruncationError(error: unknown): boolean {
  return error instanceof Error && /ended without a finish reason/i.test(error.message);
}

export function toUsage(usage: LanguageModelUsage): Usage | undefined {
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return undefined;
  const result: Usage = {
    inputTokens: usage.inputTokens ?? 0,
    outputTokens: usage.outputTokens ?? 0,
  };
  const reasoningTokens = usage.outputTokenDetails.reasoningTokens;
  const cachedInputTokens = usage.inputTokenDetails.cacheReadTokens;
  if (reasoningTokens !== undefined) result.reasoningTokens = reasoningTokens;
  if (cachedInputTokens !== undefined) result.cachedInputTokens = cachedInputTokens;
  return result;
}

function mergeMetadata(
  target: Record<string, unknown> | undefined,
  metadata: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (metadata === undefined) return target;
  const merged: Record<string, unknown> = { ...target };
  for (const [provider, value] of Object.entries(metadata)) {
    const previous = merged[provider];
    merged[provider] = isRecord(previous) && isRecord(value) ? { ...previous, ...value } : value;
  }
  return merged;
}

function hasContent(
  metadata: Record<string, unknown> | undefined,
): metadata is Record<string, unknown> {
  return (
    metadata !== undefined &&
    Object.values(metadata).some((value) => !isRecord(value) || Object.keys(value).length > 0)
  );
}

const FINISH_REASONS: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool-calls',
  'content-filter': 'content-filter',
  error: 'error',
};

interface PendingToolCall {
  name: string;
  argumentsText: string;
}

/**
 * Turns the AI SDK's `stream` parts of one step into `LlmEvent`s. It keeps just enough
 * state to attach reasoning metadata to `reasoning-end`, to rebuild full tool arguments, and to
 * decide the finish reason once the stream is over (`finish()`).
 */
export class StreamNormalizer {
  private readonly reasoningState = new Map<string, Record<string, unknown> | undefined>();
  private readonly toolCalls = new Map<string, PendingToolCall>();
  private sdkFinishReason: string | undefined;
  private hasTerminalChunk = false;
  private firstError: LlmError | undefined;
  private hasUsage = false;
  private isAborted = false;

  constructor(
    private readonly wireApi: WireApi,
    private readonly classifyError: (error: unknown) => LlmError,
    /**
     * The stream plays back an answer that arrived whole (one JSON body): it has no raw
     * protocol events, and its finish is the provider's.
     */
    private readonly options: { isWholeAnswer?: boolean } = {},
  ) {}

  get error(): LlmError | undefined {
    return this.firstError;
  }

  accept(part: StreamPart): LlmEvent[] {
    switch (part.type) {
      case 'text-delta':
        return part.text.length > 0 ? [{ type: 'text-delta', text: part.text }] : [];
      case 'reasoning-start':
        this.reasoningState.set(part.id, mergeMetadata(undefined, part.providerMetadata));
        return [];
      case 'reasoning-delta':
        this.reasoningState.set(
          part.id,
          mergeMetadata(this.reasoningState.get(part.id), part.providerMetadata),
        );
        return part.text.length > 0 ? [{ type: 'reasoning-delta', text: part.text }] : [];
      case 'reasoning-end': {
        const state = mergeMetadata(this.reasoningState.get(part.id), part.providerMetadata);
        this.reasoningState.delete(part.id);
        return [
          hasContent(state)
            ? { type: 'reasoning-end', providerState: state }
            : { type: 'reasoning-end' },
        ];
      }
      case 'tool-input-start':
        this.toolCalls.set(part.id, { name: part.toolName, argumentsText: '' });
        return [{ type: 'tool-call-start', id: part.id, name: part.toolName }];
      case 'tool-input-delta': {
        const pending = this.toolCalls.get(part.id);
        if (pending !== undefined) pending.argumentsText += part.delta;
        return part.delta.length > 0
          ? [{ type: 'tool-call-delta', id: part.id, argumentsDelta: part.delta }]
          : [];
      }
      case 'tool-call':
        return this.acceptToolCall(
          part.toolCallId,
          part.toolName,
          part.input,
          part.providerMetadata,
        );
      case 'finish-step': {
        this.sdkFinishReason = part.finishReason;
        if (this.options.isWholeAnswer === true) this.hasTerminalChunk = true;
        const usage = toUsage(part.usage);
        if (usage === undefined || this.hasUsage) return [];
        this.hasUsage = true;
        return [{ type: 'usage', usage }];
      }
      case 'raw':
        return this.acceptRaw(part.rawValue);
      case 'error':
        // A cut-off stream is reported as interrupted by `finish()`, not as a provider error.
        if (!this.hasTerminalChunk && isTruncationError(part.error)) return [];
        return this.acceptError(this.classifyError(part.error));
      case 'abort':
        this.isAborted = true;
        return [];
      default:
        // Start/end markers, sources, files and tool results/errors carry nothing we need:
        // tools have no execute here, and the agent loop validates tool input itself.
        return [];
    }
  }

  acceptError(error: LlmError): LlmEvent[] {
    if (this.firstError !== undefined) return [];
    this.firstError = error;
    return [{ type: 'error', error }];
  }

  /** The one `finish` event: an early end is `interrupted`, never success. */
  finish(): LlmEvent {
    if (this.firstError !== undefined) {
      return {
        type: 'finish',
        reason: this.firstError.code === 'content_filter' ? 'content-filter' : 'error',
      };
    }
    if (this.isAborted || !this.hasTerminalChunk) return { type: 'finish', reason: 'interrupted' };
    const reason =
      this.sdkFinishReason === undefined ? undefined : FINISH_REASONS[this.sdkFinishReason];
    // The provider finished properly with a reason the SDK calls "other" (e.g. a stop sequence).
    return { type: 'finish', reason: reason ?? 'stop' };
  }

  private acceptToolCall(
    id: string,
    name: string,
    input: unknown,
    providerMetadata: Record<string, unknown> | undefined,
  ): LlmEvent[] {
    const events: LlmEvent[] = [];
    let pending = this.toolCalls.get(id);
    if (pending === undefined) {
      // Some providers (Gemini) deliver a whole call at once, without input deltas.
      pending = { name, argumentsText: '' };
      events.push({ type: 'tool-call-start', id, name });
    }
    this.toolCalls.delete(id);
    let argumentsText = pending.argumentsText;
    if (argumentsText.trim().length === 0) {
      argumentsText =
        typeof input === 'string' ? input : input === undefined ? '' : JSON.stringify(input);
    }
    if (argumentsText.trim().length === 0) argumentsText = '{}';
    const providerState = mergeMetadata(undefined, providerMetadata);
    events.push(
      hasContent(providerState)
        ? { type: 'tool-call-end', id, name, argumentsText, providerState }
        : { type: 'tool-call-end', id, name, argumentsText },
    );
    return events;
  }

  private acceptRaw(raw: unknown): LlmEvent[] {
    if (isTerminalRawChunk(this.wireApi, raw)) this.hasTerminalChunk = true;
    if (this.wireApi !== 'google') return [];
    const blocked = readPromptBlock(raw);
    if (blocked === undefined) return [];
    this.hasTerminalChunk = true;
    return this.acceptError(this.classifyError(blocked));
  }
}
