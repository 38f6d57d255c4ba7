import { describeError } from './error-message';

export { describeError, isAbortError } from './error-message';

export interface ToastAction {
  label: string;
  run(): void;
}

export interface Toast {
  id: number;
  tone: 'error' | 'info';
  message: string;
  action?: ToastAction;
}

/** How long a notice stays; errors stay longer so there is time to read them. */
export const INFO_TOAST_MS = 6_000;
export const ERROR_TOAST_MS = 10_000;

/**
 * The one funnel for errors and notices: every state reports here, the toast region shows it.
 * Aborts are dropped on the way in, so pressing Stop never looks like a failure.
 */
export class NoticesState {
  toasts = $state<Toast[]>([]);
  private nextId = 1;
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- timer bookkeeping, never rendered
  private readonly timers = new Map<number, ReturnType<typeof setTimeout>>();

  /** Shows a clear message for `error` (nothing for an abort); `doing` says what failed. */
  report(error: unknown, doing?: string): void {
    const message = describeError(error, doing);
    if (message === null) return;
    // The same failure reported twice in a row (e.g. by a retrying live query) shows once.
    if (this.toasts.some((toast) => toast.tone === 'error' && toast.message === message)) return;
    console.error(doing ?? 'Carrel error', error);
    this.show({ tone: 'error', message }, ERROR_TOAST_MS);
  }

  /** An informational toast, optionally with one action (Undo); returns its id. */
  notify(message: string, options: { action?: ToastAction; durationMs?: number; onExpire?: () => void } = {}): number {
    return this.show(
      { tone: 'info', message, ...(options.action ? { action: options.action } : {}) },
      options.durationMs ?? INFO_TOAST_MS,
      options.onExpire,
    );
  }

  /** Closes a toast without running its expiry (Undo and the close button). */
  dismiss(id: number): void {
    const timer = this.timers.get(id);
    if (timer !== undefined) clearTimeout(timer);
    this.timers.delete(id);
    this.toasts = this.toasts.filter((toast) => toast.id !== id);
  }

  /** Runs a toast's action and closes it. */
  act(id: number): void {
    const toast = this.toasts.find((t) => t.id === id);
    this.dismiss(id);
    toast?.action?.run();
  }

  /** Wraps an async action so its failure reaches the funnel instead of the console. */
  guard<T>(doing: string, action: () => Promise<T>): Promise<T | undefined> {
    return action().catch((error: unknown) => {
      this.report(error, doing);
      return undefined;
    });
  }

  private show(toast: Omit<Toast, 'id'>, durationMs: number, onExpire?: () => void): number {
    const id = this.nextId++;
    this.toasts = [...this.toasts, { ...toast, id }];
    this.timers.set(
      id,
      setTimeout(() => {
        this.timers.delete(id);
        this.toasts = this.toasts.filter((t) => t.id !== id);
        onExpire?.();
      }, durationMs),
    );
    return id;
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.toasts = [];
  }
}
