import { collectSecrets, decideKeyUse, readOrigin, redactSecrets } from '../core/model';
import type { LlmError, LlmErrorCode, ProviderConfig } from '../core/model';
import type { ReadableTextExtractor } from '../core/ports';
import { getProviderPreset } from '../core/model/provider-presets';

/** Thrown by `listModels` (the streaming path never throws: errors become events). */
export class LlmRequestError extends Error {
  readonly error: LlmError;

  constructor(error: LlmError) {
    super(error.message);
    this.name = 'LlmRequestError';
    this.error = error;
  }
}

/** The parts of a provider config an error message may mention (never the key). */
export type ErrorProvider = Pick<ProviderConfig, 'name' | 'preset' | 'baseUrl'>;

export interface HttpFailure {
  status: number;
  /** Raw response body text (JSON in practice, but not always). */
  body: string;
  headers: Record<string, string>;
}

/** What classifying an HTTP failure needs besides the failure itself. */
export interface HttpFailureContext {
  now: number;
  /** Turns an HTML error page (a proxy's 413, a gateway's 502) into its text. */
  readableText?: ReadableTextExtractor;
}

/** Most of the provider's own words that are kept with an error (stored, shown in details). */
export const MAX_PROVIDER_MESSAGE_CHARS = 2_000;
/** Most of them quoted inside the sentence a person reads. */
export const MAX_QUOTED_CHARS = 300;
/** An error page says what matters at its top; parsing all of a huge one only costs time. */
const MAX_HTML_CHARS_READ = 16_000;

const HTML_PATTERN = /^\s*(?:<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i;

/** The fields error bodies of every provider we know use, flattened. */
interface ErrorFields {
  message?: string;
  type?: string;
  code?: string;
  /** Google's canonical status, e.g. RESOURCE_EXHAUSTED. */
  status?: string;
  reasons: string[];
  retryDelayMs?: number;
  blockReason?: string;
}

const CONTEXT_MESSAGE_PATTERN =
  /maximum context length|context window|context limit|context length of only|prompt is too long|input token count .* exceeds|request too large|too many tokens|reduce the length/i;
const CORS_MESSAGE_PATTERN = /\bCORS\b/;
const QUOTA_CODES = new Set([
  'insufficient_quota',
  'billing_error',
  'enforced_spend_limit_reached',
]);

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readString(value: unknown): string | undefined {
  if (typeof value === 'string' && value.length > 0) return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Google's Duration strings ("34.4s"). */
function parseDurationMs(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return match?.[1] === undefined ? undefined : Math.round(Number(match[1]) * 1000);
}

/** OpenAI puts the wait in the message: "Please try again in 174ms" / "in 6.5s". */
function parseRetryHintMs(message: string | undefined): number | undefined {
  const match =
    message === undefined ? null : /try again in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message);
  if (match?.[1] === undefined) return undefined;
  const amount = Number(match[1]);
  return Math.round(match[2]?.toLowerCase() === 'ms' ? amount : amount * 1000);
}

/**
 * Pulls the fields out of any provider's error shape: OpenAI `{error:{message,type,code}}`,
 * Anthropic `{type:'error', error:{type,message}}`, Google `{error:{code,status,details}}`,
 * OpenRouter's numeric codes, LM Studio's `{error:"text"}`, and bare inner objects.
 */
export function extractErrorFields(payload: unknown): ErrorFields {
  const fields: ErrorFields = { reasons: [] };
  if (typeof payload === 'string') {
    fields.message = payload;
    return fields;
  }
  if (!isRecord(payload)) return fields;
  const feedback = payload.promptFeedback;
  if (isRecord(feedback)) fields.blockReason = readString(feedback.blockReason);
  const inner = payload.error;
  if (typeof inner === 'string') {
    fields.message = inner;
    return fields;
  }
  const source = isRecord(inner) ? inner : payload;
  fields.message = readString(source.message);
  fields.type = readString(source.type);
  fields.code = readString(source.code);
  fields.status = readString(source.status);
  const details = source.details;
  if (Array.isArray(details)) {
    for (const detail of details) {
      if (!isRecord(detail)) continue;
      const reason = readString(detail.reason);
      if (reason !== undefined) fields.reasons.push(reason);
      fields.retryDelayMs ??= parseDurationMs(detail.retryDelay);
    }
  } else if (isRecord(details)) {
    const errorCode = readString(details.error_code);
    if (errorCode !== undefined) fields.reasons.push(errorCode);
  }
  return fields;
}

function lowerHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]),
  );
}

/** `retry-after-ms`, then `retry-after` (seconds or an HTTP date). */
export function readRetryAfterMs(headers: Record<string, string>, now: number): number | undefined {
  const lowered = lowerHeaders(headers);
  const milliseconds = Number(lowered['retry-after-ms']);
  if (
    lowered['retry-after-ms'] !== undefined &&
    Number.isFinite(milliseconds) &&
    milliseconds >= 0
  ) {
    return milliseconds;
  }
  const retryAfter = lowered['retry-after'];
  if (retryAfter === undefined) return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function chooseCode(
  fields: ErrorFields,
  status: number | undefined,
  isInStream: boolean,
): LlmErrorCode {
  const labels = [fields.type, fields.code, fields.status, ...fields.reasons].filter(
    (label): label is string => label !== undefined,
  );
  const has = (...names: string[]) => labels.some((label) => names.includes(label));
  const message = fields.message ?? '';

  if (fields.blockReason !== undefined) return 'content_filter';
  if (has('API_KEY_INVALID', 'invalid_api_key', 'authentication_error') || status === 401) {
    return CORS_MESSAGE_PATTERN.test(message) ? 'cors' : 'invalid_key';
  }
  if (status === 403 || has('permission_error', 'PERMISSION_DENIED')) return 'invalid_key';
  if (labels.some((label) => QUOTA_CODES.has(label)) || status === 402) return 'quota_exceeded';
  if (status === 413) return 'request_too_large';
  if (
    has('context_length_exceeded', 'string_above_max_length') ||
    CONTEXT_MESSAGE_PATTERN.test(message)
  ) {
    return 'context_too_long';
  }
  if (status === 429 || has('rate_limit_error', 'rate_limit_exceeded', 'RESOURCE_EXHAUSTED')) {
    return 'rate_limited';
  }
  if (status === 529 || status === 503 || has('overloaded_error', 'UNAVAILABLE'))
    return 'overloaded';
  if (has('content_filter', 'content_policy_violation')) return 'content_filter';
  if (status === 404 || has('not_found_error', 'NOT_FOUND', 'model_not_found')) return 'not_found';
  if ((status !== undefined && status >= 500) || has('server_error', 'api_error', 'INTERNAL')) {
    return 'server_error';
  }
  if (status === 400 || status === 422 || has('invalid_request_error', 'INVALID_ARGUMENT')) {
    return 'bad_request';
  }
  return isInStream ? 'stream_error' : 'unknown';
}

function formatSeconds(milliseconds: number): string {
  return `${Math.max(1, Math.round(milliseconds / 1000))} s`;
}

/** A sentence a person can act on, per code. The provider's own words go in `providerMessage`. */
export function describeLlmError(
  code: LlmErrorCode,
  provider: ErrorProvider,
  details: { providerMessage?: string; retryAfterMs?: number; status?: number } = {},
): string {
  const name = provider.name;
  // Double quote marks at either end of the provider's words are left out of the quotation,
  // where they would read as its own (`said: "" 0"`); the words are kept as sent.
  const words = details.providerMessage?.replace(/^[\s"]+|[\s"]+$/gu, '') ?? '';
  const quoted = words === '' ? '' : ` (${name} said: "${shorten(words, MAX_QUOTED_CHARS)}")`;
  const httpStatus = details.status === undefined ? '' : ` (HTTP ${details.status})`;
  switch (code) {
    case 'key_needed':
      return `${name} needs its API key before Carrel can send anything. Enter the key in Settings › Providers.`;
    case 'invalid_key':
      return `${name} rejected the API key. Check the key in Settings › Providers: it may be mistyped, revoked, or belong to another account.`;
    case 'rate_limited':
      return details.retryAfterMs === undefined
        ? `${name} is rate-limiting requests. Wait a moment and try again.`
        : `${name} is rate-limiting requests. Try again in about ${formatSeconds(details.retryAfterMs)}.`;
    case 'quota_exceeded':
      return `${name} says this account has run out of credit or quota. Check billing and plan limits on the provider's site.`;
    case 'context_too_long':
      return `The conversation is too long for this model${quoted}. Start a new chat, remove attachments, or choose a model with a larger context window.`;
    case 'request_too_large':
      return `The request was too large for ${name}${httpStatus}. Remove large attachments or files from the chat, or start a new chat.`;
    case 'overloaded':
      return `${name} is overloaded right now. Try again in a minute, or choose another model.`;
    case 'cors':
      return `The browser could not reach ${name} at ${provider.baseUrl}: the request was blocked (CORS) or the server is not running. ${getProviderPreset(provider.preset).corsHint}`;
    case 'offline':
      return 'You appear to be offline. Reconnect to the internet and try again.';
    case 'connection_lost':
      return `The connection to ${name} broke before the answer was complete. Check your network and try again.`;
    case 'bad_request':
      return `${name} rejected the request${quoted}. Check the model settings for this provider.`;
    case 'not_found':
      return `${name} does not know this model or endpoint${quoted}. Check the model name and the base URL.`;
    case 'server_error':
      return `${name} is not working right now${httpStatus}: the provider or a server in front of it failed${quoted}. Try again in a few minutes, or choose another provider.`;
    case 'content_filter':
      return `${name} blocked this request under its content policy. Rephrase the message and try again.`;
    case 'stream_error':
      return `The answer from ${name} stopped with an error${quoted}. Try again.`;
    case 'aborted':
      return 'The request was stopped.';
    case 'unknown':
      return `Unexpected error from ${name}${httpStatus}${quoted}.`;
  }
}

function buildError(
  code: LlmErrorCode,
  provider: ErrorProvider,
  extras: { status?: number; retryAfterMs?: number; providerMessage?: string },
): LlmError {
  // A message without a letter or a digit (blank, or only quote marks and dots) says nothing, and
  // quoting it would read as an empty quotation; a whole page of words is capped, so a huge body
  // never fills storage.
  const trimmed = extras.providerMessage?.trim() ?? '';
  const providerMessage = !/[\p{L}\p{N}]/u.test(trimmed)
    ? undefined
    : shorten(trimmed, MAX_PROVIDER_MESSAGE_CHARS);
  const details = { ...extras, providerMessage };
  const error: LlmError = { code, message: describeLlmError(code, provider, details) };
  if (extras.status !== undefined) error.status = extras.status;
  if (extras.retryAfterMs !== undefined) error.retryAfterMs = extras.retryAfterMs;
  if (providerMessage !== undefined) error.providerMessage = providerMessage;
  return error;
}

function shorten(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1).trimEnd()}…`;
}

function isHtml(failure: HttpFailure): boolean {
  const contentType = lowerHeaders(failure.headers)['content-type'] ?? '';
  return contentType.includes('text/html') || HTML_PATTERN.test(failure.body);
}

/**
 * The body as the error fields are read from it: JSON when it parses, an HTML page as its
 * title and text (or nothing, without an extractor: markup is no message), else the text.
 */
function readFailureBody(failure: HttpFailure, context: HttpFailureContext): unknown {
  if (isHtml(failure)) {
    if (context.readableText === undefined) return undefined;
    const page = context.readableText.extract(
      failure.body.slice(0, MAX_HTML_CHARS_READ),
      'about:blank',
    );
    // One line of words: no paragraph breaks, no Markdown heading marks.
    const text = page.text
      .replace(/(^|\s)#{1,6}\s/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    const title = page.title.trim();
    return [title, text.startsWith(title) ? text.slice(title.length).trim() : text]
      .filter((part) => part.length > 0)
      .join(': ');
  }
  return parseJson(failure.body) ?? failure.body;
}

/** A non-2xx HTTP response (from the API or from listing models). */
export function classifyHttpFailure(
  failure: HttpFailure,
  provider: ErrorProvider,
  context: HttpFailureContext,
): LlmError {
  const fields = extractErrorFields(readFailureBody(failure, context));
  const code = chooseCode(fields, failure.status, false);
  const retryAfterMs =
    readRetryAfterMs(failure.headers, context.now) ??
    fields.retryDelayMs ??
    parseRetryHintMs(fields.message);
  return buildError(code, provider, {
    status: failure.status,
    retryAfterMs: code === 'rate_limited' || code === 'overloaded' ? retryAfterMs : undefined,
    providerMessage: fields.message,
  });
}

/** An error object sent inside a 200 stream (`event: error`, `data: {"error":…}`, …). */
export function classifyStreamPayload(payload: unknown, provider: ErrorProvider): LlmError {
  const fields = extractErrorFields(payload);
  const code = chooseCode(fields, undefined, true);
  const providerMessage =
    fields.message ??
    (fields.blockReason === undefined ? undefined : `blocked: ${fields.blockReason}`);
  return buildError(code, provider, { providerMessage, retryAfterMs: fields.retryDelayMs });
}

/**
 * A fetch that rejected with a TypeError: the browser hides the reason, so we can only tell
 * "offline" (navigator says so) from "blocked or not running" (everything else).
 */
export function classifyNetworkFailure(
  provider: ErrorProvider,
  isOnline: boolean | undefined,
): LlmError {
  return buildError(isOnline === false ? 'offline' : 'cors', provider, {});
}

export function createAbortedError(provider: ErrorProvider): LlmError {
  return buildError('aborted', provider, {});
}

/** Reads `navigator.onLine` defensively: workers and tests may have no navigator. */
export function readIsOnline(): boolean | undefined {
  const navigatorLike: unknown = (globalThis as { navigator?: unknown }).navigator;
  if (!isRecord(navigatorLike)) return undefined;
  const onLine = navigatorLike.onLine;
  return typeof onLine === 'boolean' ? onLine : undefined;
}

/** The AI SDK's APICallError, recognised by shape so we do not depend on its class identity. */
interface ApiCallErrorLike {
  statusCode?: number;
  responseBody?: string;
  responseHeaders?: Record<string, string>;
  data?: unknown;
  message: string;
}

function isApiCallErrorLike(error: unknown): error is ApiCallErrorLike {
  return error instanceof Error && 'statusCode' in error && 'responseBody' in error;
}

/**
 * The AI SDK's StreamProviderError: the error object a provider sent inside a 200 stream, wrapped
 * with the SDK's reading of it. `data` is what the provider sent; recognised by name, like the
 * APICallError above.
 */
function isStreamProviderErrorLike(error: unknown): error is Error & { data: unknown } {
  return error instanceof Error && error.name === 'AI_StreamProviderError' && 'data' in error;
}

export function isAbortError(error: unknown): boolean {
  return (
    (error instanceof Error || (isRecord(error) && typeof error.name === 'string')) &&
    (error as { name: string }).name === 'AbortError'
  );
}

/**
 * Classifies whatever the AI SDK surfaced as a stream `error` part: an APICallError for HTTP
 * failures (or an in-stream error it promoted to one), a StreamProviderError carrying what the
 * provider sent inside the stream, a raw provider error object, or a network failure we recorded
 * at the fetch.
 */
export function classifyStreamError(
  error: unknown,
  provider: ErrorProvider,
  context: HttpFailureContext & {
    hasNetworkFailure: boolean;
    hasConnectionLost: boolean;
    isOnline: boolean | undefined;
  },
): LlmError {
  if (context.hasNetworkFailure) return classifyNetworkFailure(provider, context.isOnline);
  if (context.hasConnectionLost) {
    return buildError(context.isOnline === false ? 'offline' : 'connection_lost', provider, {});
  }
  if (isApiCallErrorLike(error)) {
    if (error.statusCode === undefined) {
      return buildError('unknown', provider, { providerMessage: error.message });
    }
    const body = error.responseBody ?? (error.data === undefined ? '' : JSON.stringify(error.data));
    return classifyHttpFailure(
      { status: error.statusCode, body, headers: error.responseHeaders ?? {} },
      provider,
      context,
    );
  }
  if (isStreamProviderErrorLike(error) && error.data !== undefined) {
    return classifyStreamPayload(error.data, provider);
  }
  if (error instanceof Error) {
    return buildError('stream_error', provider, { providerMessage: error.message });
  }
  return classifyStreamPayload(error, provider);
}

/**
 * Why the provider's key may not be used for a request, as the error to show instead of
 * sending anything; undefined when the request may go ahead.
 */
export function checkKeyUse(provider: ProviderConfig): LlmError | undefined {
  const use = decideKeyUse(provider, getProviderPreset(provider.preset).isKeyRequired);
  if (use === 'send' || use === 'none') return undefined;
  if (use === 'needed') return buildError('key_needed', provider, {});
  const target = readOrigin(provider.baseUrl) ?? provider.baseUrl;
  return {
    code: 'key_needed',
    message: `The API key of ${provider.name} was entered for ${provider.keyOrigin ?? 'another address'}, but its base URL now points to ${target}, so Carrel did not send it there. Enter the key again in Settings › Providers to use it with this address.`,
  };
}

/** Thrown by the fetch guard; never reached while `checkKeyUse` runs first. */
export class KeyOriginError extends Error {
  constructor(url: string) {
    super(
      `Refused to send an API key to ${readOrigin(url) ?? url}: it was entered for another origin.`,
    );
    this.name = 'KeyOriginError';
  }
}

/** The request layer's last word: a fetch that carries a key only to the key's own origin. */
export function guardKeyOrigin(
  fetch: typeof globalThis.fetch,
  provider: Pick<ProviderConfig, 'apiKey' | 'keyOrigin'>,
): typeof globalThis.fetch {
  if (provider.apiKey === '') return fetch;
  return (input, init) => {
    const url = input instanceof Request ? input.url : input instanceof URL ? input.href : input;
    if (provider.keyOrigin === undefined || readOrigin(url) !== provider.keyOrigin) {
      return Promise.reject(new KeyOriginError(url));
    }
    return fetch(input, init);
  };
}

/** The key and header values of a provider: what its error texts must never repeat. */
export function collectProviderSecrets(
  provider: Pick<ProviderConfig, 'apiKey' | 'headers'>,
): string[] {
  return collectSecrets([provider.apiKey, ...Object.values(provider.headers)]);
}

/** The error with every secret taken out of the words a person reads and the app stores. */
export function redactError(error: LlmError, secrets: readonly string[]): LlmError {
  const redacted: LlmError = { ...error, message: redactSecrets(error.message, secrets) };
  if (error.providerMessage !== undefined)
    redacted.providerMessage = redactSecrets(error.providerMessage, secrets);
  return redacted;
}
