import { jsonSchema, simulateStreamingMiddleware, streamText, tool, wrapLanguageModel } from 'ai';
import type { JSONSchema7, ToolSet } from 'ai';
import type { LlmError, LlmEvent, ToolDefinition } from '../core/model';
import type { LlmClient, LlmRequest, ReadableTextExtractor } from '../core/ports';
import { selectCallSettings } from './call-settings';
import { createLanguageModel, selectWireApi } from './create-language-model';
import type { FetchFunction, ProviderLanguageModel } from './create-language-model';
import {
  checkKeyUse,
  classifyStreamError,
  classifyStreamPayload,
  collectProviderSecrets,
  guardKeyOrigin,
  isAbortError,
  isRecord,
  parseJson,
  readIsOnline,
  redactError,
} from './errors';
import { listProviderModels } from './list-models';
import { StreamNormalizer } from './normalize-stream';
import { selectCacheMarker, toModelPrompt } from './to-model-messages';
import { createTrackedFetch } from './tracked-fetch';
import type { FetchTracker } from './tracked-fetch';

/** Retries after a rate limit or overload, before anything was shown; then the error stands. */
export const MAX_RETRIES = 3;
export const RETRY_BASE_DELAY_MS = 1_000;
/** A provider asking us to wait longer than this gets the error shown instead of a frozen UI. */
export const MAX_RETRY_DELAY_MS = 60_000;

/**
 * A stream that sends no byte at all (not even a keep-alive comment) for this long is treated as
 * dead: a half-open connection otherwise leaves the answer "streaming" forever. Long enough for
 * a reasoning model that streams nothing while it thinks.
 */
export const STREAM_STALL_TIMEOUT_MS = 300_000;

export type SleepFunction = (ms: number, signal: AbortSignal) => Promise<void>;

export interface LlmClientDeps {
  fetch?: FetchFunction;
  sleep?: SleepFunction;
  /** Clock for HTTP-date `retry-after` headers. */
  now?: () => number;
  /** Whether the browser believes it is online; defaults to `navigator.onLine` when present. */
  isOnline?: () => boolean | undefined;
  /** Idle time after which a silent stream is aborted (STREAM_STALL_TIMEOUT_MS by default). */
  stallTimeoutMs?: number;
  /** Reads HTML error pages as text; without it, an HTML body adds nothing to the message. */
  readableText?: ReadableTextExtractor;
  /**
   * The same, fetched when a first response fails (its code is large, and most sessions never
   * meet an error page): a failed response is handed on only once it has loaded, so every
   * error is read alike.
   */
  loadReadableText?: () => Promise<ReadableTextExtractor>;
  /**
   * The built-in model (`kind: 'local'`), which runs in the browser's generation worker; without
   * it a local provider's request ends with an error the person can read.
   */
  local?: LlmClient;
}

interface ClientEnv {
  fetch: FetchFunction;
  sleep: SleepFunction;
  now: () => number;
  isOnline: () => boolean | undefined;
  stallTimeoutMs: number;
  readableText: ReadableTextExtractor | undefined;
  /** Loads `readableText` if it is loaded on demand and not yet there. */
  prepareReadableText: () => Promise<void>;
}

/** Resolves after `ms`, or rejects with the abort reason as soon as the signal aborts. */
export function sleepWithSignal(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new DOMException('Aborted', 'AbortError'));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new DOMException('Aborted', 'AbortError'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Tools are declared without `execute`: the agent loop runs them and feeds results back. */
export function toToolSet(tools: ToolDefinition[]): ToolSet | undefined {
  if (tools.length === 0) return undefined;
  return Object.fromEntries(
    tools.map((definition) => [
      definition.name,
      tool({
        description: definition.description,
        // The definition's schema is JSON Schema by contract (zod-validated as a plain record).
        inputSchema: jsonSchema(definition.inputSchema as JSONSchema7),
      }),
    ]),
  );
}

/** The wait before retry number `attempt` (0-based), or undefined when we should not retry. */
export function computeRetryDelayMs(error: LlmError, attempt: number): number | undefined {
  if (error.code !== 'rate_limited' && error.code !== 'overloaded') return undefined;
  if (attempt >= MAX_RETRIES) return undefined;
  const delay = error.retryAfterMs ?? RETRY_BASE_DELAY_MS * 2 ** attempt;
  return delay <= MAX_RETRY_DELAY_MS ? delay : undefined;
}

const ABORTED = Symbol('aborted');

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

const INTERRUPTED: LlmEvent = { type: 'finish', reason: 'interrupted' };

/** The abort reason the stall watchdog uses, told apart from the user's Stop. */
class StreamStallError extends Error {
  constructor(readonly idleMs: number) {
    super(`No data for ${Math.round(idleMs / 1000)} s`);
    this.name = 'StreamStallError';
  }
}

/** Aborts `controller` once `ms` pass without a call to `reset()`; `stop()` disarms it. */
function startStallWatchdog(ms: number, controller: AbortController) {
  let timer = setTimeout(() => controller.abort(new StreamStallError(ms)), ms);
  return {
    reset() {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(new StreamStallError(ms)), ms);
    },
    stop() {
      clearTimeout(timer);
    },
  };
}

function describeStall(request: LlmRequest, idleMs: number): LlmError {
  return {
    code: 'stream_error',
    message: `${request.provider.name} sent nothing for ${Math.round(idleMs / 1000)} s, so the answer was stopped. Try again.`,
  };
}

function startStream(request: LlmRequest, model: ProviderLanguageModel, signal: AbortSignal) {
  return streamText({
    model,
    ...toModelPrompt(request.messages, selectCacheMarker(request)),
    tools: toToolSet(request.tools),
    ...selectCallSettings(request),
    abortSignal: signal,
    // A system message later in the conversation is ours (a summary, a notice), not a user's.
    allowSystemInMessages: true,
    // We retry ourselves (bounded, with the injected sleep) so the behaviour is testable.
    maxRetries: 0,
    // Raw chunks tell a properly finished stream from one that was cut off.
    include: { rawChunks: true },
    // Errors arrive as stream parts; the default handler would only log them.
    onError: () => undefined,
  });
}

/**
 * Feeds the SDK's parts to the normalizer until the stream ends (`done`), the signal aborts
 * (`aborted`), or `shouldStop` says the rest of this stream is not the answer.
 */
async function* pipeStream(
  result: ReturnType<typeof startStream>,
  normalizer: StreamNormalizer,
  signal: AbortSignal,
  shouldStop: () => boolean,
): AsyncGenerator<LlmEvent, 'done' | 'aborted'> {
  const iterator = result.stream[Symbol.asyncIterator]();
  for (;;) {
    const next = await raceAbort(iterator.next(), signal);
    if (next === ABORTED) {
      iterator.return?.().catch(() => undefined);
      return 'aborted';
    }
    if (next.done === true) return 'done';
    if (shouldStop()) {
      iterator.return?.().catch(() => undefined);
      return 'done';
    }
    const part = next.value;
    if (part.type === 'error' && (signal.aborted || isAbortError(part.error))) return 'aborted';
    yield* normalizer.accept(part);
  }
}

/** One HTTP request and its stream, normalised. Ends with exactly one `finish`. */
async function* runAttempt(
  request: LlmRequest,
  outerSignal: AbortSignal,
  env: ClientEnv,
): AsyncGenerator<LlmEvent> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(outerSignal.reason);
  if (outerSignal.aborted) controller.abort(outerSignal.reason);
  else outerSignal.addEventListener('abort', onAbort, { once: true });
  const signal = controller.signal;
  const watchdog = startStallWatchdog(env.stallTimeoutMs, controller);
  /** An abort ends the attempt quietly, unless the watchdog caused it: then it is an error. */
  const endAborted = (): LlmEvent[] =>
    signal.reason instanceof StreamStallError && !outerSignal.aborted
      ? [{ type: 'error', error: describeStall(request, signal.reason.idleMs) }, INTERRUPTED]
      : [INTERRUPTED];

  const tracker: FetchTracker = {
    hasNetworkFailure: false,
    hasConnectionLost: false,
    onActivity: () => watchdog.reset(),
  };
  // A provider may echo the request, key included, in its error: none of it is kept or shown.
  const secrets = collectProviderSecrets(request.provider);
  const classify = (error: unknown) =>
    redactError(
      classifyStreamError(error, request.provider, {
        now: env.now(),
        readableText: env.readableText,
        hasNetworkFailure: tracker.hasNetworkFailure,
        hasConnectionLost: tracker.hasConnectionLost,
        isOnline: env.isOnline(),
      }),
      secrets,
    );
  const wireApi = selectWireApi(request.provider);
  let normalizer = new StreamNormalizer(wireApi, classify);

  try {
    const trackedFetch = createTrackedFetch(
      readyForFailures(guardKeyOrigin(env.fetch, request.provider), env),
      tracker,
      signal,
    );
    const model = await createLanguageModel(request.provider, request.modelId, trackedFetch);
    let outcome = yield* pipeStream(
      startStream(request, model, signal),
      normalizer,
      signal,
      () => tracker.plainAnswer !== undefined,
    );
    const plainAnswer = tracker.plainAnswer;
    if (outcome === 'done' && plainAnswer !== undefined) {
      // The provider ignored "stream" and sent the whole answer as one JSON body: the SDK reads
      // it as the non-streaming answer it is, and plays it back as a stream.
      const payload = parseJson(plainAnswer.body);
      if (isRecord(payload) && ('error' in payload || payload.type === 'error')) {
        yield* normalizer.acceptError(
          redactError(classifyStreamPayload(payload, request.provider), secrets),
        );
        yield normalizer.finish();
        return;
      }
      const replayed = wrapLanguageModel({
        model: await createLanguageModel(request.provider, request.modelId, () =>
          Promise.resolve(new Response(plainAnswer.body, plainAnswer.init)),
        ),
        middleware: simulateStreamingMiddleware(),
      });
      normalizer = new StreamNormalizer(wireApi, classify, { isWholeAnswer: true });
      outcome = yield* pipeStream(
        startStream(request, replayed, signal),
        normalizer,
        signal,
        () => false,
      );
    }
    if (outcome === 'aborted' || signal.aborted) yield* endAborted();
    else yield normalizer.finish();
  } catch (error) {
    if (signal.aborted || isAbortError(error)) {
      yield* endAborted();
      return;
    }
    yield* normalizer.acceptError(classify(error));
    yield normalizer.finish();
  } finally {
    watchdog.stop();
    outerSignal.removeEventListener('abort', onAbort);
    // Also reached when the consumer stops iterating early: close the request with it.
    controller.abort();
  }
}

/**
 * Streams one inference. A rate limit or overload that arrives before any output is retried up
 * to MAX_RETRIES times, waiting what the provider asked for (retry-after headers, Gemini's
 * RetryInfo, OpenAI's "try again in") or an exponential backoff. An abort ends the stream with
 * `finish: interrupted` and no error event.
 */
async function* streamWithRetries(
  request: LlmRequest,
  signal: AbortSignal,
  env: ClientEnv,
): AsyncGenerator<LlmEvent> {
  const keyProblem = checkKeyUse(request.provider);
  if (keyProblem !== undefined) {
    // Nothing is sent: the request would go without its key, or the key to the wrong host.
    yield { type: 'error', error: keyProblem };
    yield { type: 'finish', reason: 'error' };
    return;
  }
  for (let attempt = 0; ; attempt += 1) {
    let hasOutput = false;
    let retryDelayMs: number | undefined;
    for await (const event of runAttempt(request, signal, env)) {
      if (event.type === 'error' && !hasOutput) {
        retryDelayMs = computeRetryDelayMs(event.error, attempt);
        if (retryDelayMs !== undefined) break;
      }
      hasOutput = true;
      yield event;
    }
    if (retryDelayMs === undefined) return;
    try {
      await env.sleep(retryDelayMs, signal);
    } catch {
      yield INTERRUPTED;
      return;
    }
    if (signal.aborted) {
      yield INTERRUPTED;
      return;
    }
  }
}

/** Hands a failed response on once the page reader is there to read an HTML body. */
function readyForFailures(base: FetchFunction, env: ClientEnv): FetchFunction {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.ok) await env.prepareReadableText();
    return response;
  };
}

/** The LlmClient port on the AI SDK. `fetch` and `sleep` are injectable so tests replay fixtures. */
export function createLlmClient(deps: LlmClientDeps = {}): LlmClient {
  const env: ClientEnv = {
    // Bound call: browsers throw "Illegal invocation" for a detached window.fetch.
    fetch: deps.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    sleep: deps.sleep ?? sleepWithSignal,
    now: deps.now ?? (() => Date.now()),
    isOnline: deps.isOnline ?? readIsOnline,
    stallTimeoutMs: deps.stallTimeoutMs ?? STREAM_STALL_TIMEOUT_MS,
    readableText: deps.readableText,
    prepareReadableText: async () => {
      if (env.readableText !== undefined || deps.loadReadableText === undefined) return;
      // A page reader that cannot load leaves the body out of the message, as without one.
      env.readableText = await deps.loadReadableText().catch(() => undefined);
    },
  };
  const local = deps.local;
  return {
    stream: (request, signal) =>
      request.provider.kind !== 'local'
        ? streamWithRetries(request, signal, env)
        : local !== undefined
          ? local.stream(request, signal)
          : streamLocalUnavailable(),
    listModels: (provider, signal) =>
      provider.kind !== 'local'
        ? listProviderModels(provider, signal, env)
        : local !== undefined
          ? local.listModels(provider, signal)
          : Promise.reject(new Error(LOCAL_UNAVAILABLE.message)),
  };
}

const LOCAL_UNAVAILABLE: LlmError = {
  code: 'unknown',
  message: 'The built-in model is not available here: this page could not start its worker.',
};

// eslint-disable-next-line @typescript-eslint/require-await -- an async generator, like the others
async function* streamLocalUnavailable(): AsyncGenerator<LlmEvent> {
  yield { type: 'error', error: LOCAL_UNAVAILABLE };
  yield { type: 'finish', reason: 'error' };
}
