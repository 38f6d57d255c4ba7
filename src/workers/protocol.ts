/**
 * How every worker talks to its callers, written once: a worker serves an API whose host is
 * built lazily on the first call (so a failure is reported on that call, not lost at start-up,
 * and the next call tries again); a call whose answer is a `WorkerResult` gets a failed set-up
 * as its error instead of a rejection; requests are parsed with zod where they enter; and the
 * calling side wraps the worker, starts cancellable jobs and releases it.
 *
 * Errors cross as plain `{ code, message }`, never as thrown objects (structured clone keeps
 * neither class nor code of an Error).
 */
import { expose, releaseProxy, wrap, type Remote } from 'comlink';
import type { z } from 'zod';
import type { Clock, Ids } from '../core/ports';
import type { Result } from '../util/result';

export interface WorkerError {
  code: string;
  message: string;
}

export type WorkerResult<T> = Result<T, WorkerError>;

/** The text of anything thrown. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What a call answers when the worker's stores, tokenizer or model could not be set up. */
export function setupError(error: unknown): WorkerError {
  return { code: 'worker_setup', message: errorText(error) };
}

/**
 * Parses a call's argument with its schema: the first issue's message becomes an
 * `invalid_request` error the caller can show as it is.
 */
export function parseCall<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  fallback: string,
): WorkerResult<z.output<S>> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: { code: 'invalid_request', message: parsed.error.issues[0]?.message ?? fallback } };
}

type AnyMethod = (...args: never[]) => unknown;

/**
 * Each method of an API, by how a failed set-up reaches its caller: `result` for the calls
 * answering a `WorkerResult` (the failure becomes their error), `throws` for the others (the
 * call rejects). The type admits exactly one kind per method, so a new method cannot be left out.
 */
export type CallKinds<Api> = {
  [K in keyof Api]: Api[K] extends (...args: never[]) => Promise<infer R>
    ? R extends { ok: false; error: WorkerError }
      ? 'result'
      : 'throws'
    : never;
};

/**
 * The worker side: an object answering every method of `Api` by building the host on the first
 * call (once; again after a failure) and handing the call on.
 */
export function lazyHost<Api extends object>(calls: CallKinds<Api>, build: () => Promise<Api>): Api {
  let host: Promise<Api> | undefined;
  const getHost = (): Promise<Api> => {
    if (host) return host;
    const building = build();
    host = building;
    building.catch(() => {
      if (host === building) host = undefined;
    });
    return building;
  };
  const served: Record<string, AnyMethod> = {};
  for (const [name, kind] of Object.entries<'result' | 'throws'>(calls)) {
    served[name] = async (...args: unknown[]) => {
      let ready: Api;
      try {
        ready = await getHost();
      } catch (error) {
        if (kind === 'result') return { ok: false, error: setupError(error) };
        throw error;
      }
      return (Reflect.get(ready, name) as (...a: unknown[]) => unknown).apply(ready, args);
    };
  }
  return served as Api;
}

/** Serves `api` to whoever holds the worker (or, given a port, to whoever holds its other end). */
export function serve(api: object, port?: MessagePort): void {
  if (port) expose(api, port);
  else expose(api);
}

/** The clock and ids a worker's host runs with: the real time, the browser's time zone, random ids. */
export const WORKER_CLOCK: Clock = {
  now: () => Date.now(),
  timeZone: () => Intl.DateTimeFormat().resolvedOptions().timeZone,
};
export const WORKER_IDS: Ids = { newId: () => crypto.randomUUID() };

/** The calling side of a worker: its API, and the way to end it. */
export interface WorkerConnection<Api> {
  api: Remote<Api>;
  readonly dispose: () => void;
}

/**
 * Wraps a worker (or a port on one). The caller creates the Worker itself, with a literal
 * `new URL('./x.worker.ts', import.meta.url)`, which is how the bundler finds the worker's code.
 */
export function connect<Api>(worker: Worker): WorkerConnection<Api> {
  const api = wrap<Api>(worker);
  return {
    api,
    dispose() {
      api[releaseProxy]();
      worker.terminate();
    },
  };
}

/** A long call running in a worker: its answer, and a cancel that keeps what was saved so far. */
export interface WorkerJob<T> {
  result: Promise<T>;
  cancel(): void;
}

/**
 * Starts jobs under ids unique to this caller (`prefix-1`, `prefix-2`, …); `cancel(jobId)` is
 * the worker's call that stops one. A cancel that cannot reach the worker changes nothing.
 */
export function jobStarter(
  prefix: string,
  cancel: (jobId: string) => Promise<void>,
): <T>(run: (jobId: string) => Promise<WorkerResult<T>>) => WorkerJob<WorkerResult<T>> {
  let counter = 0;
  return (run) => {
    const jobId = `${prefix}-${++counter}`;
    return { result: run(jobId), cancel: () => void cancel(jobId).catch(() => undefined) };
  };
}
