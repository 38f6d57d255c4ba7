/**
 * How every worker talks to its callers, written once: a worker serves an API whose host is
 * built lazily on the first call (so a failure is reported on that call, not lost at start-up,
 * and the next call tries again); a call whose answer is a `WorkerResult` gets a failed set-up
 * as its error instead of a rejection; requests are parsed with zod where they enter; and the
 * calling side wraps the worker (replacing one whose set-up failed), starts cancellable jobs
 * and releases it.
 *
 * Errors cross as plain `{ code, message }`, never as thrown objects (structured clone keeps
 * neither class nor code of an Error).
 */
import { expose, releaseProxy, wrap, type Endpoint, type Remote } from 'comlink';
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
 * The name a failed set-up's Error carries to a caller whose call answers no result. Comlink
 * keeps a thrown Error's name and message across the boundary, so the calling side can tell a
 * worker that never started from a call that failed.
 */
export const WORKER_SETUP_FAILED = 'WorkerSetupError';

function setupFailure(error: unknown): Error {
  const failure = new Error(errorText(error));
  failure.name = WORKER_SETUP_FAILED;
  return failure;
}

/** Whether a call's answer (or what it threw) says the worker's set-up failed. */
export function isSetupFailure(outcome: unknown): boolean {
  if (outcome instanceof Error) return outcome.name === WORKER_SETUP_FAILED;
  if (typeof outcome !== 'object' || outcome === null) return false;
  const { ok, error } = outcome as { ok?: unknown; error?: unknown };
  return ok === false && typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'worker_setup';
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
        throw setupFailure(error);
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

/** What a renewing connection starts: a Worker, or in tests anything that talks like one. */
export type WorkerEndpoint = Endpoint & { terminate(): void };

/** A worker the caller reaches through `call`, started again when its set-up failed. */
export interface RenewingConnection<Api> {
  /**
   * Runs `use` on the current worker (starting one if there is none). When the answer says the
   * worker could not set itself up, that worker is retired and `use` runs once more on a fresh
   * one; a second failure is answered as it is, and the next call starts another worker.
   */
  readonly call: <R>(use: (api: Remote<Api>) => R) => Promise<Awaited<R>>;
  /**
   * Retires the current worker, as a call that saw its set-up fail does, and starts a fresh
   * one at once (its `onStart` runs): for a failure seen by someone who reaches the worker
   * other than through `call`, over a port `onStart` handed out.
   */
  readonly renew: () => void;
  readonly dispose: () => void;
}

interface LiveWorker<Api> {
  api: Remote<Api>;
  endpoint: WorkerEndpoint;
  inFlight: number;
  retired: boolean;
}

/**
 * Connects to a worker that is replaced when its set-up fails. A browser remembers a module
 * that failed to load (a dynamic import cut short while the page was offline or busy) for the
 * worker's whole life, so trying again inside the same worker fails the same way; a new worker
 * fetches it again. A set-up that failed ran nothing, so the call is safe to repeat once.
 *
 * The caller creates the Worker in `start`, with a literal `new URL('./x.worker.ts',
 * import.meta.url)`, which is how the bundler finds the worker's code. `onStart` runs for each
 * worker started (to hand it a port, say). A retired worker is ended once no call on it is
 * still running.
 */
export function connectRenewing<Api>(
  start: () => WorkerEndpoint,
  onStart?: (api: Remote<Api>) => void,
): RenewingConnection<Api> {
  let current: LiveWorker<Api> | null = null;
  const alive = new Set<LiveWorker<Api>>();
  let disposed = false;
  const open = (): LiveWorker<Api> => {
    if (disposed) throw new Error('This worker was ended.');
    if (current) return current;
    const endpoint = start();
    current = { api: wrap<Api>(endpoint), endpoint, inFlight: 0, retired: false };
    alive.add(current);
    onStart?.(current.api);
    return current;
  };
  const end = (live: LiveWorker<Api>): void => {
    if (!alive.delete(live)) return;
    live.api[releaseProxy]();
    live.endpoint.terminate();
  };
  const retire = (live: LiveWorker<Api>): void => {
    live.retired = true;
    if (current === live) current = null;
    if (live.inFlight === 0) end(live);
  };
  /** Runs `use` once; says whether its worker failed to set up (and retires that worker). */
  const attempt = async <R>(use: (api: Remote<Api>) => R): Promise<{ answer: Awaited<R>; failedSetup: boolean }> => {
    const live = open();
    live.inFlight++;
    const settle = (failedSetup: boolean): void => {
      live.inFlight--;
      if (failedSetup || live.retired) retire(live);
    };
    let answer: Awaited<R>;
    try {
      answer = await use(live.api);
    } catch (error) {
      settle(isSetupFailure(error));
      throw error;
    }
    const failedSetup = isSetupFailure(answer);
    settle(failedSetup);
    return { answer, failedSetup };
  };
  return {
    call: async <R>(use: (api: Remote<Api>) => R): Promise<Awaited<R>> => {
      try {
        const first = await attempt(use);
        if (!first.failedSetup || disposed) return first.answer;
      } catch (error) {
        if (!isSetupFailure(error) || disposed) throw error;
      }
      return (await attempt(use)).answer;
    },
    renew: () => {
      if (disposed) return;
      if (current) retire(current);
      open();
    },
    dispose: () => {
      disposed = true;
      current = null;
      for (const live of [...alive]) end(live);
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
