// Anthropic Messages: `POST /v1/messages`. Streaming uses named events:
// message_start → (content_block_start → content_block_delta* → content_block_stop)* →
// message_delta (stop_reason, usage) → message_stop.

import type { PlannedToolCall, TurnPlan } from '../scenarios';
import type { AuthInput, CallInfo, KeyValidator, ProviderProtocol } from './protocol';
import { eventFrame, isRecord, lastTextOfRole, toSingleLine } from './wire';

/** Fixed so that model lists are stable across runs. */
const MODEL_CREATED_AT = '2025-09-29T00:00:00Z';

export function describeAnthropicCall(body: unknown): CallInfo {
  const fields = isRecord(body) ? body : {};
  return {
    model: typeof fields.model === 'string' ? fields.model : 'unknown-model',
    isStreaming: fields.stream === true,
    includeUsage: true,
  };
}

/** Anthropic requests are recognisable by their headers (used to split `GET /v1/models`). */
export function hasAnthropicHeaders(headers: Readonly<Record<string, string>>): boolean {
  if (headers['x-api-key'] !== undefined && headers['anthropic-version'] !== undefined) return true;
  // A preflight only announces the header names it is about to send.
  const announced = (headers['access-control-request-headers'] ?? '').toLowerCase();
  return announced.includes('x-api-key') || announced.includes('anthropic-version');
}

const event = (payload: { type: string } & Record<string, unknown>): string =>
  eventFrame(payload.type, JSON.stringify(payload));

const toolUseId = (plan: TurnPlan, call: PlannedToolCall, index: number): string =>
  call.id ?? `toolu_${plan.responseId}_${index}`;

const signatureOf = (plan: TurnPlan): string =>
  Buffer.from(`mock-signature-${plan.responseId}`).toString('base64');

const stopReasonOf = (plan: TurnPlan): string =>
  plan.ending.kind === 'finish' && plan.ending.reason === 'tool-calls' ? 'tool_use' : 'end_turn';

function messageStart(plan: TurnPlan, call: CallInfo): string {
  return event({
    type: 'message_start',
    message: {
      id: `msg_${plan.responseId}`,
      type: 'message',
      role: 'assistant',
      model: call.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      // input_tokens counts only what the cache did not serve; cache reads are reported apart.
      usage: {
        input_tokens: plan.usage.inputTokens - plan.usage.cachedInputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: plan.usage.cachedInputTokens,
        output_tokens: 1,
      },
    },
  });
}

/** One content block: start, its deltas, and (unless the stream is cut) its stop. */
function block(
  index: number,
  contentBlock: Record<string, unknown>,
  deltas: Record<string, unknown>[],
  isClosed: boolean,
): string[] {
  return [
    event({ type: 'content_block_start', index, content_block: contentBlock }),
    ...deltas.map((delta) => event({ type: 'content_block_delta', index, delta })),
    ...(isClosed ? [event({ type: 'content_block_stop', index })] : []),
  ];
}

function contentFrames(plan: TurnPlan): string[] {
  const isFinished = plan.ending.kind === 'finish';
  const frames: string[] = [];
  let index = 0;
  if (plan.reasoningDeltas.length > 0) {
    const deltas: Record<string, unknown>[] = [
      ...plan.reasoningDeltas.map((thinking) => ({ type: 'thinking_delta', thinking })),
      // The signature arrives as one delta just before the thinking block stops.
      { type: 'signature_delta', signature: signatureOf(plan) },
    ];
    frames.push(...block(index++, { type: 'thinking', thinking: '', signature: '' }, deltas, true));
  }
  if (plan.textDeltas.length > 0) {
    const deltas = plan.textDeltas.map((text) => ({ type: 'text_delta', text }));
    const isLastBlock = plan.toolCalls.length === 0;
    frames.push(...block(index++, { type: 'text', text: '' }, deltas, isFinished || !isLastBlock));
  }
  plan.toolCalls.forEach((call, callIndex) => {
    const start = {
      type: 'tool_use',
      id: toolUseId(plan, call, callIndex),
      name: call.name,
      input: {},
    };
    const deltas = call.argumentPieces.map((partial_json) => ({
      type: 'input_json_delta',
      partial_json,
    }));
    frames.push(...block(index++, start, deltas, true));
  });
  return frames;
}

function endingFrames(plan: TurnPlan): string[] {
  switch (plan.ending.kind) {
    case 'hang':
      return [];
    case 'error':
      return [eventFrame('error', toSingleLine(plan.ending.body))];
    case 'finish':
      return [
        event({
          type: 'message_delta',
          delta: { stop_reason: stopReasonOf(plan), stop_sequence: null },
          usage: { output_tokens: plan.usage.outputTokens },
        }),
        event({ type: 'message_stop' }),
      ];
  }
}

function responseContent(plan: TurnPlan): Record<string, unknown>[] {
  const reasoning = plan.reasoningDeltas.join('');
  const text = plan.textDeltas.join('');
  return [
    ...(reasoning === ''
      ? []
      : [{ type: 'thinking', thinking: reasoning, signature: signatureOf(plan) }]),
    ...(text === '' ? [] : [{ type: 'text', text }]),
    ...plan.toolCalls.map((call, index) => ({
      type: 'tool_use',
      id: toolUseId(plan, call, index),
      name: call.name,
      input: call.argumentsValue,
    })),
  ];
}

export const anthropicProtocol: ProviderProtocol = {
  provider: 'anthropic',
  streamContentType: 'text/event-stream; charset=utf-8',
  defaultStreamErrorId: 'anthropic-stream-overloaded',

  authFailure(input: AuthInput, isValidKey: KeyValidator) {
    const { headers } = input;
    // Browsers always send Origin; Anthropic refuses them unless the app opts in.
    const isBrowser = headers.origin !== undefined;
    if (isBrowser && headers['anthropic-dangerous-direct-browser-access'] !== 'true') {
      return 'anthropic-401-cors-header-missing';
    }
    const key = headers['x-api-key'];
    return key !== undefined && isValidKey(key) ? undefined : 'anthropic-401-invalid-x-api-key';
  },

  lastUserText(body: unknown) {
    return isRecord(body) ? lastTextOfRole(body.messages, ['user'], 'content') : '';
  },

  encodeStream(plan, call) {
    return [
      messageStart(plan, call),
      event({ type: 'ping' }),
      ...contentFrames(plan),
      ...endingFrames(plan),
    ];
  },

  encodeResponse(plan, call) {
    return {
      id: `msg_${plan.responseId}`,
      type: 'message',
      role: 'assistant',
      model: call.model,
      content: responseContent(plan),
      stop_reason: stopReasonOf(plan),
      stop_sequence: null,
      usage: {
        input_tokens: plan.usage.inputTokens - plan.usage.cachedInputTokens,
        cache_read_input_tokens: plan.usage.cachedInputTokens,
        output_tokens: plan.usage.outputTokens,
      },
    };
  },

  genericErrorBody(status, message) {
    const type = status >= 500 ? 'api_error' : 'invalid_request_error';
    return JSON.stringify({ type: 'error', error: { type, message } });
  },

  listModels(ids) {
    return {
      data: ids.map((id) => ({
        type: 'model',
        id,
        display_name: id,
        created_at: MODEL_CREATED_AT,
      })),
      has_more: false,
      first_id: ids[0] ?? null,
      last_id: ids[ids.length - 1] ?? null,
    };
  },
};
