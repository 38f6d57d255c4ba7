// Google Gemini API: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` and
// `:generateContent`. Each SSE event is a whole GenerateContentResponse, framed with CRLF.

import type { TurnPlan } from '../scenarios';
import type { AuthInput, CallInfo, KeyValidator, ProviderProtocol } from './protocol';
import { dataFrame, isRecord, lastTextOfRole, toSingleLine } from './wire';

export type GeminiAction = 'streamGenerateContent' | 'generateContent';

const GENERATION_METHODS = [
  'generateContent',
  'countTokens',
  'createCachedContent',
  'batchGenerateContent',
];
const INPUT_TOKEN_LIMIT = 1_048_576;
const OUTPUT_TOKEN_LIMIT = 65_536;

/** `/v1beta/models/gemini-2.5-flash:streamGenerateContent` → model + action. */
export function parseGeminiPath(path: string): { model: string; action: GeminiAction } | undefined {
  const match = /^\/v1beta\/models\/([^/:]+):(streamGenerateContent|generateContent)$/.exec(path);
  if (match?.[1] === undefined) return undefined;
  return { model: match[1], action: match[2] as GeminiAction };
}

export function describeGeminiCall(model: string, action: GeminiAction): CallInfo {
  return { model, isStreaming: action === 'streamGenerateContent', includeUsage: true };
}

type Part = Record<string, unknown>;

function usageMetadata(plan: TurnPlan, isFinal: boolean): Record<string, unknown> {
  const { inputTokens, outputTokens, reasoningTokens, cachedInputTokens } = plan.usage;
  const candidates = outputTokens - reasoningTokens;
  // Like the real API, intermediate chunks only know the prompt size.
  if (!isFinal) return { promptTokenCount: inputTokens, totalTokenCount: inputTokens };
  return {
    promptTokenCount: inputTokens,
    candidatesTokenCount: candidates,
    totalTokenCount: inputTokens + outputTokens,
    ...(reasoningTokens > 0 ? { thoughtsTokenCount: reasoningTokens } : {}),
    // promptTokenCount includes the cached part, which cachedContentTokenCount reports.
    ...(cachedInputTokens > 0 ? { cachedContentTokenCount: cachedInputTokens } : {}),
  };
}

function responseOf(
  plan: TurnPlan,
  call: CallInfo,
  parts: Part[],
  isFinal: boolean,
): Record<string, unknown> {
  return {
    candidates: [
      {
        content: { parts, role: 'model' },
        ...(isFinal ? { finishReason: 'STOP' } : {}),
        index: 0,
      },
    ],
    usageMetadata: usageMetadata(plan, isFinal),
    modelVersion: call.model,
    responseId: plan.responseId,
  };
}

/** Gemini sends whole function calls (no argument fragments), all in one chunk. */
function functionCallParts(plan: TurnPlan): Part[] {
  return plan.toolCalls.map((call) => ({
    functionCall: { name: call.name, args: call.argumentsValue },
  }));
}

/** One list of parts per streamed chunk. */
function chunkParts(plan: TurnPlan): Part[][] {
  const chunks: Part[][] = [
    ...plan.reasoningDeltas.map((text) => [{ text, thought: true }]),
    ...plan.textDeltas.map((text) => [{ text }]),
  ];
  if (plan.toolCalls.length > 0) chunks.push(functionCallParts(plan));
  return chunks;
}

function streamFrames(plan: TurnPlan, call: CallInfo): string[] {
  const chunks = chunkParts(plan);
  const isFinished = plan.ending.kind === 'finish';
  // Gemini puts finishReason and the full usage on the last chunk; it needs one to carry them.
  if (isFinished && chunks.length === 0) chunks.push([{ text: '' }]);
  const frames = chunks.map((parts, index) => {
    const isFinal = isFinished && index === chunks.length - 1;
    return dataFrame(JSON.stringify(responseOf(plan, call, parts, isFinal)), '\r\n');
  });
  if (plan.ending.kind === 'error') frames.push(dataFrame(toSingleLine(plan.ending.body), '\r\n'));
  return frames;
}

function responseParts(plan: TurnPlan): Part[] {
  const reasoning = plan.reasoningDeltas.join('');
  const text = plan.textDeltas.join('');
  return [
    ...(reasoning === '' ? [] : [{ text: reasoning, thought: true }]),
    ...(text === '' ? [] : [{ text }]),
    ...functionCallParts(plan),
  ];
}

export const geminiProtocol: ProviderProtocol = {
  provider: 'gemini',
  streamContentType: 'text/event-stream',
  defaultStreamErrorId: 'gemini-503-unavailable-high-demand',

  authFailure(input: AuthInput, isValidKey: KeyValidator) {
    const key = input.headers['x-goog-api-key'] ?? input.query.key;
    // Gemini reports a bad (or absent) key as 400 INVALID_ARGUMENT, not 401.
    return key !== undefined && isValidKey(key) ? undefined : 'gemini-400-api-key-invalid';
  },

  lastUserText(body: unknown) {
    // `role` may be omitted on user turns.
    return isRecord(body) ? lastTextOfRole(body.contents, ['user', undefined], 'parts') : '';
  },

  encodeStream: streamFrames,

  encodeResponse(plan, call) {
    return responseOf(plan, call, responseParts(plan), true);
  },

  genericErrorBody(status, message) {
    const grpcStatus = status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT';
    return JSON.stringify({ error: { code: status, message, status: grpcStatus } }, null, 2) + '\n';
  },

  listModels(ids) {
    return {
      models: ids.map((id) => ({
        name: `models/${id}`,
        version: '001',
        displayName: id,
        description: 'Mock model served by the Carrel mock LLM server.',
        inputTokenLimit: INPUT_TOKEN_LIMIT,
        outputTokenLimit: OUTPUT_TOKEN_LIMIT,
        supportedGenerationMethods: GENERATION_METHODS,
        temperature: 1,
        topP: 0.95,
        topK: 64,
        maxTemperature: 2,
        thinking: true,
      })),
    };
  },
};
