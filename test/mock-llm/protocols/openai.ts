// OpenAI Chat Completions (also what OpenAI-compatible servers speak): `POST /v1/chat/completions`.
// Streaming: `data: <chat.completion.chunk>\n\n` … `data: [DONE]\n\n`.

import type { PlannedToolCall, TurnPlan } from '../scenarios';
import type { AuthInput, CallInfo, KeyValidator, ProviderProtocol } from './protocol';
import { dataFrame, isRecord, lastTextOfRole, toSingleLine } from './wire';

const DONE_FRAME = dataFrame('[DONE]');
const SYSTEM_FINGERPRINT = 'fp_mock';
/** Fixed so that model lists are stable across runs. */
const MODEL_CREATED_SECONDS = 1_715_367_049;

export function describeOpenAiCall(body: unknown): CallInfo {
  const fields = isRecord(body) ? body : {};
  const streamOptions = isRecord(fields.stream_options) ? fields.stream_options : {};
  return {
    model: typeof fields.model === 'string' ? fields.model : 'unknown-model',
    isStreaming: fields.stream === true,
    includeUsage: streamOptions.include_usage === true,
  };
}

function bearerKey(headers: AuthInput['headers']): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '');
  return match?.[1]?.trim();
}

const callId = (plan: TurnPlan, call: PlannedToolCall, index: number): string =>
  call.id ?? `call_${plan.responseId}_${index}`;

function usageOf(plan: TurnPlan): Record<string, unknown> {
  const { inputTokens, outputTokens, reasoningTokens, cachedInputTokens } = plan.usage;
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
    // prompt_tokens counts the cached ones too; the details say how many were cached.
    prompt_tokens_details: { cached_tokens: cachedInputTokens },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
}

const finishReasonOf = (plan: TurnPlan): string =>
  plan.ending.kind === 'finish' && plan.ending.reason === 'tool-calls' ? 'tool_calls' : 'stop';

function chunkFrame(
  plan: TurnPlan,
  call: CallInfo,
  delta: Record<string, unknown>,
  finishReason: string | null = null,
): string {
  const chunk = {
    id: `chatcmpl-${plan.responseId}`,
    object: 'chat.completion.chunk',
    created: plan.createdAtSeconds,
    model: call.model,
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
  return dataFrame(JSON.stringify(chunk));
}

/** First fragment carries id, type, name and `arguments: ""`; later ones only pieces. */
function toolCallFrames(plan: TurnPlan, call: CallInfo): string[] {
  return plan.toolCalls.flatMap((toolCall, index) => [
    chunkFrame(plan, call, {
      tool_calls: [
        {
          index,
          id: callId(plan, toolCall, index),
          type: 'function',
          function: { name: toolCall.name, arguments: '' },
        },
      ],
    }),
    ...toolCall.argumentPieces.map((piece) =>
      chunkFrame(plan, call, { tool_calls: [{ index, function: { arguments: piece } }] }),
    ),
  ]);
}

function usageFrame(plan: TurnPlan, call: CallInfo): string {
  const chunk = {
    id: `chatcmpl-${plan.responseId}`,
    object: 'chat.completion.chunk',
    created: plan.createdAtSeconds,
    model: call.model,
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices: [],
    usage: usageOf(plan),
  };
  return dataFrame(JSON.stringify(chunk));
}

function endingFrames(plan: TurnPlan, call: CallInfo): string[] {
  switch (plan.ending.kind) {
    case 'hang':
      return [];
    // The real API (and the fixture) sends the error object as a data line, then [DONE].
    case 'error':
      return [dataFrame(toSingleLine(plan.ending.body)), DONE_FRAME];
    case 'finish':
      return [
        chunkFrame(plan, call, {}, finishReasonOf(plan)),
        ...(call.includeUsage ? [usageFrame(plan, call)] : []),
        DONE_FRAME,
      ];
  }
}

export const openAiProtocol: ProviderProtocol = {
  provider: 'openai',
  streamContentType: 'text/event-stream; charset=utf-8',
  defaultStreamErrorId: 'openai-chat-stream-server-error',

  authFailure(input: AuthInput, isValidKey: KeyValidator) {
    const key = bearerKey(input.headers);
    return key !== undefined && isValidKey(key) ? undefined : 'openai-401-invalid-api-key';
  },

  lastUserText(body: unknown) {
    return isRecord(body) ? lastTextOfRole(body.messages, ['user'], 'content') : '';
  },

  encodeStream(plan, call) {
    return [
      chunkFrame(plan, call, { role: 'assistant', content: '', refusal: null }),
      // OpenAI-compatible reasoning servers (DeepSeek, xAI, vLLM) use `reasoning_content`.
      ...plan.reasoningDeltas.map((piece) => chunkFrame(plan, call, { reasoning_content: piece })),
      ...plan.textDeltas.map((piece) => chunkFrame(plan, call, { content: piece })),
      ...toolCallFrames(plan, call),
      ...endingFrames(plan, call),
    ];
  },

  encodeResponse(plan, call) {
    const text = plan.textDeltas.join('');
    const reasoning = plan.reasoningDeltas.join('');
    const toolCalls = plan.toolCalls.map((toolCall, index) => ({
      id: callId(plan, toolCall, index),
      type: 'function',
      function: { name: toolCall.name, arguments: toolCall.argumentsJson },
    }));
    const message = {
      role: 'assistant',
      content: text === '' && toolCalls.length > 0 ? null : text,
      refusal: null,
      ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
      ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
    };
    return {
      id: `chatcmpl-${plan.responseId}`,
      object: 'chat.completion',
      created: plan.createdAtSeconds,
      model: call.model,
      system_fingerprint: SYSTEM_FINGERPRINT,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(plan) }],
      usage: usageOf(plan),
    };
  },

  genericErrorBody(status, message) {
    const type = status >= 500 ? 'server_error' : 'invalid_request_error';
    return JSON.stringify({ error: { message, type, param: null, code: null } });
  },

  listModels(ids) {
    return {
      object: 'list',
      data: ids.map((id) => ({
        id,
        object: 'model',
        created: MODEL_CREATED_SECONDS,
        owned_by: 'system',
      })),
    };
  },
};
