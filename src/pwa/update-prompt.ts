import type { Scheduler } from '../core/ports';

/**
 * The "A new version is ready" flow. The service worker is registered with `registerType:
 * 'prompt'`, so a new version waits until the person accepts; even then the page reloads only
 * once no generation is running, because a reload would cut an answer off mid-stream.
 */

/** How often a deferred update checks whether the running generation has finished. */
export const GENERATION_POLL_MS = 500;

export type UpdateStatus =
  /** Nothing new, or the person chose "Later". */
  | 'idle'
  /** A new version is installed and waiting: show the prompt. */
  | 'ready'
  /** Accepted (here or in another tab) while an answer was being generated; applies when it ends. */
  | 'waiting-for-generation'
  /** The new version is taking over; the page is about to reload. */
  | 'updating';

export interface UpdatePromptDeps {
  /** The lead's hook: true while any answer is streaming in this tab. */
  isGenerationRunning: () => boolean;
  /** Tells the waiting service worker to take over (`updateSW()` from virtual:pwa-register). */
  activateUpdate: () => Promise<void>;
  reload: () => void;
  scheduler: Scheduler;
  onError?: (error: unknown) => void;
}

export interface UpdatePrompt {
  readonly status: UpdateStatus;
  subscribe(listener: (status: UpdateStatus) => void): () => void;
  /** The service worker reports a waiting version (`onNeedRefresh`). */
  notifyUpdateReady(): void;
  /** The new version now controls this page (`onNeedReload`): reload as soon as nothing runs. */
  notifyControllerChanged(): void;
  accept(): void;
  dismiss(): void;
  dispose(): void;
}

type PendingAction = 'activate' | 'reload';

export function createUpdatePrompt(deps: UpdatePromptDeps): UpdatePrompt {
  let status: UpdateStatus = 'idle';
  let pending: PendingAction | null = null;
  let cancelPoll: (() => void) | null = null;
  const listeners = new Set<(status: UpdateStatus) => void>();

  function setStatus(next: UpdateStatus): void {
    if (next === status) return;
    status = next;
    for (const listener of listeners) listener(status);
  }

  function stopPolling(): void {
    cancelPoll?.();
    cancelPoll = null;
  }

  function run(action: PendingAction): void {
    stopPolling();
    pending = null;
    setStatus('updating');
    if (action === 'reload') {
      deps.reload();
      return;
    }
    deps.activateUpdate().catch((error: unknown) => {
      // The waiting worker is gone or refused: offer the prompt again rather than hang.
      setStatus('ready');
      deps.onError?.(error);
    });
  }

  function poll(): void {
    cancelPoll = deps.scheduler.schedule(() => {
      cancelPoll = null;
      if (!pending) return;
      if (deps.isGenerationRunning()) poll();
      else run(pending);
    }, GENERATION_POLL_MS);
  }

  /** Runs `action` now, or after the current generation finishes. */
  function runWhenIdle(action: PendingAction): void {
    if (!deps.isGenerationRunning()) {
      run(action);
      return;
    }
    // A reload also covers an activation that was still waiting.
    pending = action === 'reload' || pending === null ? action : pending;
    setStatus('waiting-for-generation');
    if (!cancelPoll) poll();
  }

  return {
    get status() {
      return status;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notifyUpdateReady() {
      if (status === 'idle') setStatus('ready');
    },
    notifyControllerChanged() {
      runWhenIdle('reload');
    },
    accept() {
      if (status !== 'ready') return;
      runWhenIdle('activate');
    },
    dismiss() {
      // Once the new worker controls the page, staying on old code is not an option.
      if (status === 'updating' || pending === 'reload') return;
      stopPolling();
      pending = null;
      setStatus('idle');
    },
    dispose() {
      stopPolling();
      listeners.clear();
    },
  };
}
