// A real HTTP server on 127.0.0.1 that speaks the OpenAI, Anthropic and Gemini wire
// protocols, for end-to-end tests and manual play. Each request goes through:
// read → route → decide (CORS / auth / scenario) → record → respond.

import { createServer } from 'node:http';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createScenarioQueue, handleControl } from './control';
import type { ScenarioQueue } from './control';
import { loadFixtures } from './fixtures';
import { createMockModelFiles, type MockModelFiles } from './model-files';
import type { Fixtures } from './fixtures';
import {
  anthropicProtocol,
  describeAnthropicCall,
  hasAnthropicHeaders,
} from './protocols/anthropic';
import { describeGeminiCall, geminiProtocol, parseGeminiPath } from './protocols/gemini';
import { describeOpenAiCall, openAiProtocol } from './protocols/openai';
import type { CallInfo, KeyValidator, LlmProvider, ProviderProtocol } from './protocols/protocol';
import { isRecord } from './protocols/wire';
import { createRequestLog } from './recorder';
import type { RecordedRequest, RequestLog, RequestProvider } from './recorder';
import { planTurn, startEventStream, watchConnection, writeFrames } from './scenarios';
import { createMockWeb, type MockWeb } from './web/web-server';
import type {
  ClientConnection,
  GeneratedScenario,
  HttpErrorScenario,
  ReplayScenario,
  Scenario,
} from './scenarios';

export type { RecordedRequest, RequestProvider } from './recorder';
export type { LlmProvider } from './protocols/protocol';
export type {
  EchoScenario,
  HangScenario,
  HttpErrorScenario,
  MidstreamErrorScenario,
  ReplayScenario,
  Scenario,
  ScenarioKind,
  TextScenario,
  ToolCallSpec,
  ToolCallsScenario,
  Usage,
} from './scenarios';

export interface MockLlmOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Defaults to the repository's test/fixtures/providers. */
  fixturesDir?: string;
  /** Accepted API keys. Default: any key starting with `sk-` or `test-`. */
  validKeys?: readonly string[] | KeyValidator;
  /** Model ids returned by the models endpoints. */
  models?: Partial<Record<LlmProvider, readonly string[]>>;
}

export interface MockLlm {
  /** `http://127.0.0.1:PORT`; base URLs are `${url}/v1` (OpenAI, Anthropic), `${url}/v1beta` (Gemini). */
  readonly url: string;
  readonly port: number;
  /** Every following LLM request gets `scenario` (clears the queue). */
  setScenario(scenario: Scenario): void;
  /** Each LLM request consumes the next queued scenario; then the default applies again. */
  queueScenarios(...scenarios: Scenario[]): void;
  /** Empty queue, default back to echo, request log cleared. */
  reset(): void;
  requests(): RecordedRequest[];
  clearRequests(): void;
  /**
   * First request recorded since the last clearRequests() that matches (default: any LLM
   * generation request), waiting for it if needed.
   */
  waitForRequest(
    predicate?: (request: RecordedRequest) => boolean,
    timeoutMs?: number,
  ): Promise<RecordedRequest>;
  /** LLM responses currently in flight (streams the client has not yet closed). */
  openStreams(): number;
  /** The fake web under `${url}/web/` (search APIs, pages, reader, MCP): web/web-server.ts. */
  readonly web: MockWeb;
  /** Embedding model files under `${url}/models/` (test/fixtures/models): model-files.ts. */
  readonly models: MockModelFiles;
  /** Resolves once no stream is open and the client closed at least one (since clearRequests). */
  waitForClosed(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';
const DEFAULT_KEY_PREFIXES = ['sk-', 'test-'];
/** As long as an e2e expectation waits (playwright.config.ts): a limit for a loaded machine, not a speed target. */
const DEFAULT_WAIT_MS = 30_000;
/** Pause between the pieces of a replay with chunkBytes, so they arrive as separate reads. */
const REPLAY_PIECE_DELAY_MS = 2;
const PREFLIGHT_MAX_AGE_SECONDS = '86400';
const DEFAULT_MODELS: Record<LlmProvider, readonly string[]> = {
  openai: ['gpt-4o-mini', 'gpt-4.1', 'o4-mini'],
  anthropic: ['claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001'],
  gemini: ['gemini-2.5-flash', 'gemini-2.5-pro'],
};

interface ServerContext {
  fixtures: Fixtures;
  scenarios: ScenarioQueue;
  log: RequestLog;
  isValidKey: KeyValidator;
  models: Record<LlmProvider, readonly string[]>;
}

// ---------------------------------------------------------------------------------------
// Read

interface Incoming {
  method: string;
  /** Path as sent (percent-encoding kept). */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  rawBody: string;
  body: unknown;
}

/** Lower-cased names; values verbatim (tests check which key went to which provider). */
function headersOf(rawHeaders: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? '').toLowerCase();
    const value = rawHeaders[i + 1] ?? '';
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}

function parseBody(rawBody: string, contentType: string | undefined): unknown {
  if (rawBody === '') return undefined;
  const looksLikeJson = (contentType ?? '').includes('json') || /^\s*[[{]/.test(rawBody);
  if (!looksLikeJson) return rawBody;
  try {
    return JSON.parse(rawBody) as unknown;
  } catch {
    return rawBody;
  }
}

async function readIncoming(req: IncomingMessage): Promise<Incoming> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const rawBody = Buffer.concat(chunks).toString('utf8');
  const url = new URL(req.url ?? '/', `http://${HOST}`);
  const headers = headersOf(req.rawHeaders);
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers,
    rawBody,
    body: parseBody(rawBody, headers['content-type']),
  };
}

// ---------------------------------------------------------------------------------------
// Route

type Route =
  | { kind: 'control' }
  | { kind: 'generate'; protocol: ProviderProtocol; call: CallInfo }
  | { kind: 'models'; protocol: ProviderProtocol }
  | { kind: 'unknown'; provider: RequestProvider; protocol?: ProviderProtocol };

function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function routeOf(incoming: Incoming): Route {
  const path = decodePath(incoming.path);
  // `/v1/*` is shared by OpenAI and Anthropic; Anthropic clients always send their headers.
  const v1Protocol = hasAnthropicHeaders(incoming.headers) ? anthropicProtocol : openAiProtocol;
  const gemini = parseGeminiPath(path);
  if (path.startsWith('/__mock/')) return { kind: 'control' };
  if (path === '/v1/chat/completions') {
    return { kind: 'generate', protocol: openAiProtocol, call: describeOpenAiCall(incoming.body) };
  }
  if (path === '/v1/messages') {
    return {
      kind: 'generate',
      protocol: anthropicProtocol,
      call: describeAnthropicCall(incoming.body),
    };
  }
  if (gemini !== undefined) {
    return {
      kind: 'generate',
      protocol: geminiProtocol,
      call: describeGeminiCall(gemini.model, gemini.action),
    };
  }
  if (path === '/v1/models') return { kind: 'models', protocol: v1Protocol };
  if (path === '/v1beta/models') return { kind: 'models', protocol: geminiProtocol };
  if (path.startsWith('/v1beta/'))
    return { kind: 'unknown', provider: 'gemini', protocol: geminiProtocol };
  if (path.startsWith('/v1/'))
    return { kind: 'unknown', provider: v1Protocol.provider, protocol: v1Protocol };
  return { kind: 'unknown', provider: 'other' };
}

const providerOf = (route: Route): RequestProvider =>
  route.kind === 'control'
    ? 'control'
    : route.kind === 'unknown'
      ? route.provider
      : route.protocol.provider;

// ---------------------------------------------------------------------------------------
// Decide

interface ErrorReply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

type Outcome =
  | { kind: 'preflight' }
  | { kind: 'control' }
  | { kind: 'models'; protocol: ProviderProtocol }
  | { kind: 'error'; reply: ErrorReply }
  | { kind: 'scenario'; protocol: ProviderProtocol; call: CallInfo; scenario: Scenario };

function notFound(route: Route, incoming: Incoming): Outcome {
  const message = `Unknown request ${incoming.method} ${incoming.path}`;
  const protocol = route.kind === 'control' ? undefined : route.protocol;
  const body = protocol?.genericErrorBody(404, message) ?? JSON.stringify({ error: message });
  return { kind: 'error', reply: { status: 404, body } };
}

function catalogueReply(ctx: ServerContext, errorId: string): ErrorReply {
  const entry = ctx.fixtures.errorEntry(errorId);
  return { status: entry.status, body: entry.body };
}

/** Auth runs before a scenario is taken, so a rejected request leaves the queue alone. */
function decide(ctx: ServerContext, route: Route, incoming: Incoming): Outcome {
  if (incoming.method === 'OPTIONS') return { kind: 'preflight' };
  if (route.kind === 'control') return { kind: 'control' };
  const expectedMethod = route.kind === 'generate' ? 'POST' : 'GET';
  if (route.kind === 'unknown' || incoming.method !== expectedMethod)
    return notFound(route, incoming);
  const authFailure = route.protocol.authFailure(incoming, ctx.isValidKey);
  if (authFailure !== undefined) return { kind: 'error', reply: catalogueReply(ctx, authFailure) };
  if (route.kind === 'models') return { kind: 'models', protocol: route.protocol };
  if (!isRecord(incoming.body)) {
    const body = route.protocol.genericErrorBody(400, 'The request body must be a JSON object.');
    return { kind: 'error', reply: { status: 400, body } };
  }
  return {
    kind: 'scenario',
    protocol: route.protocol,
    call: route.call,
    scenario: ctx.scenarios.next(),
  };
}

// ---------------------------------------------------------------------------------------
// Respond

function setCorsHeaders(res: ServerResponse): void {
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('access-control-expose-headers', '*');
}

function answerPreflight(incoming: Incoming, res: ServerResponse): void {
  const requested = incoming.headers['access-control-request-headers'];
  res.setHeader('access-control-allow-methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
  res.setHeader('access-control-allow-headers', requested ?? '*');
  res.setHeader('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
  // Chrome's Private Network Access preflight, in case the app is served from elsewhere.
  if (incoming.headers['access-control-request-private-network'] === 'true') {
    res.setHeader('access-control-allow-private-network', 'true');
  }
  res.writeHead(204);
  res.end();
}

function contentTypeOf(body: string): string {
  try {
    JSON.parse(body);
    return 'application/json';
  } catch {
    return 'text/plain; charset=utf-8';
  }
}

function sendReply(res: ServerResponse, reply: ErrorReply): void {
  res.writeHead(reply.status, { 'content-type': contentTypeOf(reply.body), ...reply.headers });
  res.end(reply.body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

interface Exchange {
  ctx: ServerContext;
  incoming: Incoming;
  record: RecordedRequest;
  res: ServerResponse;
  connection: ClientConnection;
  protocol: ProviderProtocol;
  call: CallInfo;
}

function sendHttpError(ex: Exchange, scenario: HttpErrorScenario): void {
  const entry =
    scenario.errorId === undefined ? undefined : ex.ctx.fixtures.errorEntry(scenario.errorId);
  const status = scenario.status ?? entry?.status ?? 500;
  const body =
    scenario.body ??
    entry?.body ??
    ex.protocol.genericErrorBody(status, `Mock HTTP ${status} error`);
  sendReply(ex.res, { status, body, headers: scenario.headers });
}

function slices(bytes: Buffer, size: number | undefined): Buffer[] {
  if (size === undefined || size <= 0) return [bytes];
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
  return pieces;
}

async function serveReplay(ex: Exchange, scenario: ReplayScenario): Promise<void> {
  const replay = await ex.ctx.fixtures.readReplay(scenario.file);
  startEventStream(ex.res, replay.contentType);
  const delayMs = scenario.chunkBytes === undefined ? 0 : REPLAY_PIECE_DELAY_MS;
  await writeFrames(
    ex.res,
    ex.connection,
    slices(replay.bytes, scenario.chunkBytes),
    delayMs,
    (frame) => ex.ctx.log.noteWritten(ex.record, frame),
  );
  if (!ex.connection.isClosed()) ex.res.end();
}

async function serveTurn(ex: Exchange, scenario: GeneratedScenario): Promise<void> {
  const { ctx, protocol, call, res, connection } = ex;
  const plan = planTurn(scenario, {
    responseId: `mock${ex.record.id}`,
    lastUserText: protocol.lastUserText(ex.incoming.body),
    requestTokens: countTokens(ex.incoming.rawBody),
    streamError: (errorId) => {
      const entry = ctx.fixtures.errorEntry(errorId ?? protocol.defaultStreamErrorId);
      return { body: entry.body, status: entry.status >= 400 ? entry.status : 500 };
    },
  });
  if (!call.isStreaming || (scenario.kind === 'text' && scenario.isPlainJson === true)) {
    // A non-streaming request that hangs gets nothing at all, not even headers.
    if (plan.ending.kind === 'hang') return connection.closed;
    if (plan.ending.kind === 'error') return sendReply(res, plan.ending);
    return sendJson(res, 200, protocol.encodeResponse(plan, call));
  }
  startEventStream(res, protocol.streamContentType);
  await writeFrames(
    res,
    connection,
    protocol.encodeStream(plan, call),
    plan.frameDelayMs,
    (frame) => ctx.log.noteWritten(ex.record, frame),
  );
  if (scenario.kind === 'hang' && scenario.shouldReset === true) {
    // Flush what was written, then close mid-body: the browser sees a broken response.
    res.socket?.destroySoon();
    return connection.closed;
  }
  if (plan.ending.kind === 'hang') return connection.closed;
  if (!connection.isClosed()) res.end();
}

async function serveScenario(ex: Exchange, scenario: Scenario): Promise<void> {
  switch (scenario.kind) {
    case 'http-error':
      return sendHttpError(ex, scenario);
    case 'replay':
      return serveReplay(ex, scenario);
    default:
      return serveTurn(ex, scenario);
  }
}

async function respond(
  ctx: ServerContext,
  outcome: Outcome,
  exchange: {
    incoming: Incoming;
    record: RecordedRequest;
    res: ServerResponse;
    connection: ClientConnection;
  },
): Promise<void> {
  const { incoming, record, res, connection } = exchange;
  switch (outcome.kind) {
    case 'preflight':
      return answerPreflight(incoming, res);
    case 'control':
      return handleControl(ctx, incoming, res);
    case 'error':
      return sendReply(res, outcome.reply);
    case 'models':
      return sendJson(res, 200, outcome.protocol.listModels(ctx.models[outcome.protocol.provider]));
    case 'scenario': {
      ctx.log.markStream(record);
      const { protocol, call } = outcome;
      return serveScenario(
        { ctx, incoming, record, res, connection, protocol, call },
        outcome.scenario,
      );
    }
  }
}

async function handleRequest(
  ctx: ServerContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const startedAt = Date.now();
  // Watch from the start: the client may already be gone by the time the body is read.
  const connection = watchConnection(res);
  const incoming = await readIncoming(req);
  const route = routeOf(incoming);
  const outcome = decide(ctx, route, incoming);
  const record = ctx.log.add({
    method: incoming.method,
    path: incoming.path,
    query: incoming.query,
    headers: incoming.headers,
    body: incoming.body,
    rawBody: incoming.rawBody,
    provider: providerOf(route),
    isPreflight: outcome.kind === 'preflight',
    ...(outcome.kind === 'scenario' ? { scenario: outcome.scenario.kind } : {}),
    startedAt,
  });
  void connection.closed.then(() => ctx.log.end(record, res.writableFinished, res.statusCode));
  setCorsHeaders(res);
  await respond(ctx, outcome, { incoming, record, res, connection });
}

/** A mistake in a scenario (unknown errorId, missing replay file) becomes a readable 500. */
function failRequest(res: ServerResponse, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  setCorsHeaders(res);
  sendJson(res, 500, { error: { message, type: 'mock_llm_error' } });
}

// ---------------------------------------------------------------------------------------
// Lifecycle

function keyValidatorOf(validKeys: MockLlmOptions['validKeys']): KeyValidator {
  if (typeof validKeys === 'function') return validKeys;
  if (validKeys !== undefined) {
    const accepted = new Set(validKeys);
    return (key) => accepted.has(key);
  }
  return (key) => DEFAULT_KEY_PREFIXES.some((prefix) => key.startsWith(prefix));
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startMockLlm(opts: MockLlmOptions = {}): Promise<MockLlm> {
  const ctx: ServerContext = {
    fixtures: await loadFixtures(opts.fixturesDir),
    scenarios: createScenarioQueue(),
    log: createRequestLog(),
    isValidKey: keyValidatorOf(opts.validKeys),
    models: { ...DEFAULT_MODELS, ...opts.models },
  };
  const web = createMockWeb();
  const models = createMockModelFiles();
  const server = createServer((req, res) => {
    // /web/ routes belong to the fake web of the web tools, /models/ to the embedding model
    // files; everything else is the LLM mock.
    web
      .handle(req, res)
      .then(async (isHandled) => isHandled || (await models.handle(req, res)))
      .then((isHandled) => (isHandled ? undefined : handleRequest(ctx, req, res)))
      .catch((error: unknown) => failRequest(res, error));
  });
  const port = await listen(server, opts.port ?? 0);
  const isLlmRequest = (r: RecordedRequest): boolean => r.scenario !== undefined;

  return {
    url: `http://${HOST}:${port}`,
    port,
    web,
    models,
    setScenario(scenario) {
      ctx.scenarios.reset();
      ctx.scenarios.setDefault(scenario);
    },
    queueScenarios: (...scenarios) => ctx.scenarios.queue(scenarios),
    reset() {
      ctx.scenarios.reset();
      ctx.log.clear();
      models.reset();
    },
    requests: () => ctx.log.list(),
    clearRequests: () => ctx.log.clear(),
    waitForRequest: (predicate = isLlmRequest, timeoutMs = DEFAULT_WAIT_MS) =>
      ctx.log.waitForRequest(predicate, timeoutMs),
    openStreams: () => ctx.log.state().openStreams,
    waitForClosed: (timeoutMs = DEFAULT_WAIT_MS) => ctx.log.waitForClosed(timeoutMs),
    async close() {
      ctx.log.setShuttingDown();
      // Hanging streams and idle keep-alive sockets would otherwise keep close() waiting.
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
