// What the mock answers with. A scenario is provider-neutral: the same `{kind:'text'}` is
// streamed as OpenAI chunks, Anthropic events or Gemini responses depending on which
// endpoint the app called. `planTurn` turns a scenario into a neutral TurnPlan that the
// protocols/*.ts encoders serialise; `writeFrames` puts the frames on the wire.

import type { ServerResponse } from 'node:http';
import { isRecord } from './protocols/wire';

export interface Usage {
  /** All input tokens, cached ones included (each protocol splits them its own way). */
  inputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  /** Input tokens served from the provider's prompt cache (default 0). */
  cachedInputTokens?: number;
}

export interface TextScenario {
  kind: 'text';
  text: string;
  /** Characters per delta (default DEFAULT_CHUNK_SIZE). */
  chunkSize?: number;
  /** Deltas per second; omitted = as fast as possible. */
  tokensPerSecond?: number;
  /** Streamed before the text as reasoning / thinking / thought parts. */
  reasoning?: string;
  usage?: Usage;
  /** Answer even a streaming request with the one JSON body of a non-streaming answer. */
  isPlainJson?: boolean;
}

export interface ToolCallSpec {
  id?: string;
  name: string;
  /** Any JSON value, or a string that is sent verbatim as the arguments JSON text. */
  arguments: unknown;
}

export interface ToolCallsScenario {
  kind: 'tool-calls';
  calls: ToolCallSpec[];
  /** Text streamed before the calls. */
  text?: string;
  usage?: Usage;
}

export interface ReplayScenario {
  kind: 'replay';
  /** File name inside the shared fixtures dir, e.g. `openai-chat-text.sse`. */
  file: string;
  /** Write the body in pieces of this many bytes with a tiny pause between them. */
  chunkBytes?: number;
}

export interface HttpErrorScenario {
  kind: 'http-error';
  /** Defaults to the catalogue entry's status when `errorId` is given, else 500. */
  status?: number;
  /** Exact body; wins over `errorId`. */
  body?: string;
  /** An id from the shared `*-error-bodies.json` catalogues. */
  errorId?: string;
  headers?: Record<string, string>;
}

export interface MidstreamErrorScenario {
  kind: 'midstream-error';
  /** Text streamed before the error. */
  text: string;
  /** Catalogue id of the error payload; defaults per provider (see README). */
  errorId?: string;
}

export interface HangScenario {
  kind: 'hang';
  /** Text streamed before the stream goes silent. */
  text?: string;
  /** Close the connection after the text, mid-body, instead of waiting (a dropped network). */
  shouldReset?: boolean;
}

export interface EchoScenario {
  kind: 'echo';
}

export type Scenario =
  | TextScenario
  | ToolCallsScenario
  | ReplayScenario
  | HttpErrorScenario
  | MidstreamErrorScenario
  | HangScenario
  | EchoScenario;

export type ScenarioKind = Scenario['kind'];

/** Scenarios whose answer is generated (as opposed to served from a file or an error). */
export type GeneratedScenario = Exclude<Scenario, ReplayScenario | HttpErrorScenario>;

export const DEFAULT_CHUNK_SIZE = 4;
/** Tool-call argument JSON is streamed in pieces this long, like the real APIs do. */
const TOOL_ARGUMENT_PIECE_CHARS = 8;
/** Crude chars-per-token ratio used when a scenario does not script usage. */
const CHARS_PER_TOKEN = 4;

// ---------------------------------------------------------------------------------------
// Validation of scenarios that arrive over the control HTTP API

export type ParseResult = { ok: true; scenario: Scenario } | { ok: false; error: string };

const isOptional = (value: unknown, type: 'string' | 'number'): boolean =>
  value === undefined || typeof value === type;

function isUsage(value: unknown): boolean {
  if (value === undefined) return true;
  if (!isRecord(value)) return false;
  return ['inputTokens', 'outputTokens', 'reasoningTokens', 'cachedInputTokens'].every((key) =>
    isOptional(value[key], 'number'),
  );
}

function isStringMap(value: unknown): boolean {
  if (value === undefined) return true;
  return isRecord(value) && Object.values(value).every((v) => typeof v === 'string');
}

function isToolCallSpec(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value.name === 'string' &&
    isOptional(value.id, 'string') &&
    'arguments' in value
  );
}

/** Checks each kind's required fields; the value is then trusted as a Scenario. */
function validateFields(value: Record<string, unknown>): string | undefined {
  switch (value.kind) {
    case 'text':
      return typeof value.text === 'string' &&
        isOptional(value.chunkSize, 'number') &&
        isOptional(value.tokensPerSecond, 'number') &&
        isOptional(value.reasoning, 'string') &&
        (value.isPlainJson === undefined || typeof value.isPlainJson === 'boolean') &&
        isUsage(value.usage)
        ? undefined
        : 'text scenario needs text: string (chunkSize/tokensPerSecond numbers, reasoning string)';
    case 'tool-calls':
      return Array.isArray(value.calls) &&
        value.calls.every(isToolCallSpec) &&
        isOptional(value.text, 'string') &&
        isUsage(value.usage)
        ? undefined
        : 'tool-calls scenario needs calls: [{name, arguments, id?}]';
    case 'replay':
      return typeof value.file === 'string' && isOptional(value.chunkBytes, 'number')
        ? undefined
        : 'replay scenario needs file: string';
    case 'http-error':
      return (typeof value.status === 'number' || typeof value.errorId === 'string') &&
        isOptional(value.status, 'number') &&
        isOptional(value.body, 'string') &&
        isOptional(value.errorId, 'string') &&
        isStringMap(value.headers)
        ? undefined
        : 'http-error scenario needs status: number or errorId: string';
    case 'midstream-error':
      return typeof value.text === 'string' && isOptional(value.errorId, 'string')
        ? undefined
        : 'midstream-error scenario needs text: string';
    case 'hang':
      return isOptional(value.text, 'string') &&
        (value.shouldReset === undefined || typeof value.shouldReset === 'boolean')
        ? undefined
        : 'hang scenario text must be a string, shouldReset a boolean';
    case 'echo':
      return undefined;
    default:
      return `unknown scenario kind: ${JSON.stringify(value.kind)}`;
  }
}

export function parseScenario(value: unknown): ParseResult {
  if (!isRecord(value)) return { ok: false, error: 'a scenario must be an object with a kind' };
  const error = validateFields(value);
  // validateFields checked every field the union declares for this kind.
  return error === undefined
    ? { ok: true, scenario: value as unknown as Scenario }
    : { ok: false, error };
}

// ---------------------------------------------------------------------------------------
// Planning: scenario → provider-neutral turn

export type TurnEnding =
  | { kind: 'finish'; reason: 'stop' | 'tool-calls' }
  /**
   * `body` is the exact catalogue payload (encoders put it on one line); `status` is what a
   * non-streaming request gets instead.
   */
  | { kind: 'error'; body: string; status: number }
  /** Send the deltas, then keep the connection open until the client leaves. */
  | { kind: 'hang' };

export interface PlannedToolCall {
  /** Scenario-supplied id; encoders invent a provider-shaped one when absent. */
  id: string | undefined;
  name: string;
  argumentsJson: string;
  argumentsValue: unknown;
  argumentPieces: string[];
}

export interface TurnPlan {
  /** Unique per request; encoders derive message / completion / call ids from it. */
  responseId: string;
  createdAtSeconds: number;
  reasoningDeltas: string[];
  textDeltas: string[];
  toolCalls: PlannedToolCall[];
  ending: TurnEnding;
  usage: Required<Usage>;
  /** Pause between frames (from tokensPerSecond). */
  frameDelayMs: number;
}

export interface PlanContext {
  responseId: string;
  /** Text of the last user message, for the echo scenario. */
  lastUserText: string;
  /** Tokens of the raw request body (o200k): the default input-token usage, close to what a
   * provider would report, so the app's token calibration learns from realistic figures. */
  requestTokens: number;
  /** Resolves the in-stream error of a midstream-error scenario (undefined = provider default). */
  streamError: (errorId: string | undefined) => { body: string; status: number };
}

/** Splits by code point so a delta never cuts an emoji or other surrogate pair in half. */
export function splitText(text: string, size: number): string[] {
  const chars = Array.from(text);
  const step = Math.max(1, Math.floor(size));
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += step) pieces.push(chars.slice(i, i + step).join(''));
  return pieces;
}

const estimateTokens = (text: string): number => Math.ceil(text.length / CHARS_PER_TOKEN);

function planToolCall(spec: ToolCallSpec): PlannedToolCall {
  const isRawJson = typeof spec.arguments === 'string';
  const argumentsJson = isRawJson
    ? (spec.arguments as string)
    : JSON.stringify(spec.arguments ?? {});
  return {
    id: spec.id,
    name: spec.name,
    argumentsJson,
    argumentsValue: isRawJson ? parseJsonOr(argumentsJson, argumentsJson) : (spec.arguments ?? {}),
    argumentPieces: splitText(argumentsJson, TOOL_ARGUMENT_PIECE_CHARS),
  };
}

function parseJsonOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return fallback;
  }
}

interface PlanParts {
  reasoning?: string;
  text: string;
  calls?: ToolCallSpec[];
  chunkSize?: number;
  tokensPerSecond?: number;
  usage?: Usage;
  ending: TurnEnding;
}

function partsOf(scenario: GeneratedScenario, ctx: PlanContext): PlanParts {
  switch (scenario.kind) {
    case 'text':
      return { ...scenario, ending: { kind: 'finish', reason: 'stop' } };
    case 'tool-calls':
      return {
        text: scenario.text ?? '',
        calls: scenario.calls,
        usage: scenario.usage,
        ending: { kind: 'finish', reason: 'tool-calls' },
      };
    case 'midstream-error':
      return {
        text: scenario.text,
        ending: { kind: 'error', ...ctx.streamError(scenario.errorId) },
      };
    case 'hang':
      return { text: scenario.text ?? '', ending: { kind: 'hang' } };
    case 'echo':
      return { text: `You said: ${ctx.lastUserText}`, ending: { kind: 'finish', reason: 'stop' } };
  }
}

export function planTurn(scenario: GeneratedScenario, ctx: PlanContext): TurnPlan {
  const parts = partsOf(scenario, ctx);
  const chunkSize = parts.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const toolCalls = (parts.calls ?? []).map(planToolCall);
  const reasoning = parts.reasoning ?? '';
  const reasoningTokens = parts.usage?.reasoningTokens ?? estimateTokens(reasoning);
  const generated = parts.text + toolCalls.map((call) => call.argumentsJson).join('');
  const tps = parts.tokensPerSecond;
  return {
    responseId: ctx.responseId,
    createdAtSeconds: Math.floor(Date.now() / 1000),
    reasoningDeltas: splitText(reasoning, chunkSize),
    textDeltas: splitText(parts.text, chunkSize),
    toolCalls,
    ending: parts.ending,
    usage: {
      inputTokens: parts.usage?.inputTokens ?? ctx.requestTokens,
      outputTokens: parts.usage?.outputTokens ?? estimateTokens(generated) + reasoningTokens,
      reasoningTokens,
      cachedInputTokens: parts.usage?.cachedInputTokens ?? 0,
    },
    frameDelayMs: tps !== undefined && tps > 0 ? 1000 / tps : 0,
  };
}

// ---------------------------------------------------------------------------------------
// Writing: frames → response, stopping as soon as the client goes away

export interface ClientConnection {
  isClosed(): boolean;
  /** Resolves when the response is closed, by either side. */
  closed: Promise<void>;
}

export function watchConnection(res: ServerResponse): ClientConnection {
  let isClosed = false;
  const closed = new Promise<void>((resolve) => {
    res.once('close', () => {
      isClosed = true;
      resolve();
    });
  });
  return { isClosed: () => isClosed || res.destroyed, closed };
}

/** Waits `ms`, or less if the client disconnects first (no point pacing a dead stream). */
function pause(ms: number, connection: ClientConnection): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([elapsed, connection.closed]).finally(() => clearTimeout(timer));
}

export async function writeFrames(
  res: ServerResponse,
  connection: ClientConnection,
  frames: readonly (string | Uint8Array)[],
  delayMs: number,
  onWritten?: (frame: string | Uint8Array) => void,
): Promise<void> {
  for (const [index, frame] of frames.entries()) {
    if (index > 0 && delayMs > 0) await pause(delayMs, connection);
    if (connection.isClosed()) return;
    res.write(frame);
    onWritten?.(frame);
  }
}

export function startEventStream(res: ServerResponse, contentType: string): void {
  res.writeHead(200, {
    'content-type': contentType,
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  // Headers go out now so the client's fetch() resolves before the first delta (and for
  // the hang scenario, before the silence).
  res.flushHeaders();
}
