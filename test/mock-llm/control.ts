// The control plane: which scenario answers the next LLM request, and the `/__mock/*` HTTP
// API through which a test in another process (or the app during manual play) drives it.

import type { ServerResponse } from 'node:http';
import type { RequestLog, RequestProvider } from './recorder';
import { parseScenario } from './scenarios';
import type { Scenario } from './scenarios';
import { isRecord } from './protocols/wire';

const DEFAULT_SCENARIO: Scenario = { kind: 'echo' };

export interface ScenarioQueue {
  /** The scenario for the next LLM request: the head of the queue, else the default. */
  next(): Scenario;
  queue(scenarios: readonly Scenario[]): void;
  setDefault(scenario: Scenario): void;
  reset(): void;
  describe(): { queued: number; defaultScenario: Scenario };
}

export function createScenarioQueue(): ScenarioQueue {
  let queued: Scenario[] = [];
  let fallback = DEFAULT_SCENARIO;
  return {
    next: () => queued.shift() ?? fallback,
    queue(scenarios) {
      queued.push(...scenarios);
    },
    setDefault(scenario) {
      fallback = scenario;
    },
    reset() {
      queued = [];
      fallback = DEFAULT_SCENARIO;
    },
    describe: () => ({ queued: queued.length, defaultScenario: fallback }),
  };
}

export interface ControlRequest {
  method: string;
  path: string;
  query: Readonly<Record<string, string>>;
  body: unknown;
}

export interface ControlContext {
  scenarios: ScenarioQueue;
  log: RequestLog;
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function parseAll(values: readonly unknown[]): { scenarios: Scenario[] } | { error: string } {
  const scenarios: Scenario[] = [];
  for (const [index, value] of values.entries()) {
    const result = parseScenario(value);
    if (!result.ok) return { error: `scenario ${index}: ${result.error}` };
    scenarios.push(result.scenario);
  }
  return { scenarios };
}

/**
 * Accepts `[s, …]` (queue), `{default: s}`, `{queue: [s, …], default?: s}` or a single `s`.
 * Everything is validated before anything changes, so a bad body leaves the state alone.
 */
function postScenarios(ctx: ControlContext, body: unknown, res: ServerResponse): void {
  const toQueue = Array.isArray(body)
    ? body
    : isRecord(body) && 'kind' in body
      ? [body]
      : isRecord(body) && Array.isArray(body.queue)
        ? body.queue
        : [];
  const defaults = isRecord(body) && 'default' in body ? [body.default] : [];
  if (toQueue.length === 0 && defaults.length === 0) {
    return sendJson(res, 400, {
      error: 'expected an array of scenarios, a scenario, or {default, queue}',
    });
  }
  const queued = parseAll(toQueue);
  const fallback = parseAll(defaults);
  if ('error' in queued) return sendJson(res, 400, { error: queued.error });
  if ('error' in fallback) return sendJson(res, 400, { error: `default ${fallback.error}` });
  ctx.scenarios.queue(queued.scenarios);
  const [newDefault] = fallback.scenarios;
  if (newDefault !== undefined) ctx.scenarios.setDefault(newDefault);
  sendJson(res, 200, ctx.scenarios.describe());
}

function getRequests(
  ctx: ControlContext,
  query: ControlRequest['query'],
  res: ServerResponse,
): void {
  const provider = query.provider as RequestProvider | undefined;
  const requests = ctx.log.list().filter((r) => provider === undefined || r.provider === provider);
  sendJson(res, 200, requests);
}

function getState(ctx: ControlContext, res: ServerResponse): void {
  const { queued, defaultScenario } = ctx.scenarios.describe();
  sendJson(res, 200, { ...ctx.log.state(), queuedScenarios: queued, defaultScenario });
}

export function handleControl(
  ctx: ControlContext,
  request: ControlRequest,
  res: ServerResponse,
): void {
  const route = `${request.method} ${request.path}`;
  switch (route) {
    case 'POST /__mock/scenarios':
      return postScenarios(ctx, request.body, res);
    case 'DELETE /__mock/scenarios':
      ctx.scenarios.reset();
      return sendJson(res, 200, ctx.scenarios.describe());
    case 'GET /__mock/requests':
      return getRequests(ctx, request.query, res);
    case 'DELETE /__mock/requests':
      ctx.log.clear();
      return sendJson(res, 200, { cleared: true });
    case 'GET /__mock/state':
      return getState(ctx, res);
    case 'POST /__mock/reset':
      ctx.scenarios.reset();
      ctx.log.clear();
      return sendJson(res, 200, { reset: true });
    default:
      return sendJson(res, 404, { error: `no control route ${route}` });
  }
}
