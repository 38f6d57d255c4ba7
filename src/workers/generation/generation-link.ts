/**
 * The agent worker's link to the generation worker: the port the UI hands over, and a fresh one
 * asked for when the worker behind it could not set itself up. Such a worker fails every call
 * the same way for its whole life (a browser remembers a module that failed to load), and only
 * the UI can start another: it does, then hands over a port on the new one.
 */
export interface GenerationLink<T> {
  /** The generation worker, once the UI connected one. */
  current(): T | null;
  /** A worker from the UI, with how to ask the UI for a fresh one. */
  connect(remote: T, renew: () => void): void;
  /**
   * A worker other than `failed`: the one connected since, or a fresh one asked of the UI. Null
   * when none comes within the wait, or the signal aborts first.
   */
  renew(failed: T, signal: AbortSignal): Promise<T | null>;
}

/** How long a renewal waits for the UI's new port: starting a worker takes well under this. */
export const GENERATION_RENEW_WAIT_MS = 20_000;

export function createGenerationLink<T>(options: {
  /** Lets go of a worker replaced by a newer one (Comlink's releaseProxy). */
  release?: (old: T) => void;
  waitMs?: number;
} = {}): GenerationLink<T> {
  let current: T | null = null;
  let askForFresh: (() => void) | null = null;
  const waiting = new Set<(remote: T | null) => void>();
  return {
    current: () => current,
    connect(remote, renew) {
      const old = current;
      current = remote;
      askForFresh = renew;
      if (old !== null && old !== remote) options.release?.(old);
      for (const resolve of [...waiting]) resolve(remote);
    },
    renew(failed, signal) {
      if (current !== null && current !== failed) return Promise.resolve(current);
      if (signal.aborted || askForFresh === null) return Promise.resolve(null);
      return new Promise<T | null>((resolve) => {
        const settle = (remote: T | null): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          waiting.delete(settle);
          resolve(remote);
        };
        const onAbort = (): void => settle(null);
        const timer = setTimeout(() => settle(null), options.waitMs ?? GENERATION_RENEW_WAIT_MS);
        signal.addEventListener('abort', onAbort, { once: true });
        // Answers failing together on one worker ask for one fresh worker between them.
        const isFirst = waiting.size === 0;
        waiting.add(settle);
        if (!isFirst) return;
        try {
          askForFresh?.();
        } catch {
          settle(null);
        }
      });
    },
  };
}
