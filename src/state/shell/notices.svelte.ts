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

/**
 * How long a notice stays; errors stay longer so there is time to read them, and a notice with
 * an action (Undo) as long, so there is time to reach it.
 */
export const INFO_TOAST_MS = 6_000;
export const ACTION_TOAST_MS = 10_000;
export const ERROR_TOAST_MS = 10_000;

/** Why the toasts' countdown is paused: the pointer rests on them, focus is in them, or the page is hidden. */
export type HoldReason = 'pointer' | 'focus' | 'hidden';

interface Countdown {
  remainingMs: number;
  /** When the running timer started; undefined while paused. */
  startedAt?: number;
  timer?: ReturnType<typeof setTimeout>;
  onExpire?: () => void;
}

/**
 * The one funnel for errors and notices: every state reports here, the toast region shows it.
 * Aborts are dropped on the way in, so pressing Stop never looks like a failure.
 *
 * A toast's time runs only while nobody is looking at it closely: while the pointer rests on the
 * toasts, focus is in them or the page is hidden, every countdown pauses, and resumes with the
 * time it had left (an Undo does not vanish under the hand reaching for it).
 */
export class NoticesState {
  toasts = $state<Toast[]>([]);
  private nextId = 1;
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- timer bookkeeping, never rendered
  private readonly countdowns = new Map<number, Countdown>();
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- timer bookkeeping, never rendered
  private readonly holds = new Set<HoldReason>();

  constructor(private readonly now: () => number = () => Date.now()) {}

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
  notify(
    message: string,
    options: { action?: ToastAction; durationMs?: number; onExpire?: () => void } = {},
  ): number {
    return this.show(
      { tone: 'info', message, ...(options.action ? { action: options.action } : {}) },
      options.durationMs ?? (options.action ? ACTION_TOAST_MS : INFO_TOAST_MS),
      options.onExpire,
    );
  }

  /** Closes a toast without running its expiry (Undo and the close button). */
  dismiss(id: number): void {
    const countdown = this.countdowns.get(id);
    if (countdown?.timer !== undefined) clearTimeout(countdown.timer);
    this.countdowns.delete(id);
    this.toasts = this.toasts.filter((toast) => toast.id !== id);
  }

  /** Pauses every toast's countdown for `reason` until `release(reason)`. */
  hold(reason: HoldReason): void {
    const wasRunning = this.holds.size === 0;
    this.holds.add(reason);
    if (!wasRunning) return;
    for (const countdown of this.countdowns.values()) this.pause(countdown);
  }

  /** Ends the pause for `reason`; the countdowns resume once no reason is left. */
  release(reason: HoldReason): void {
    if (!this.holds.delete(reason) || this.holds.size > 0) return;
    for (const [id, countdown] of this.countdowns) this.start(id, countdown);
  }

  get isHeld(): boolean {
    return this.holds.size > 0;
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
    const countdown: Countdown = { remainingMs: durationMs, ...(onExpire ? { onExpire } : {}) };
    this.countdowns.set(id, countdown);
    if (this.holds.size === 0) this.start(id, countdown);
    return id;
  }

  private start(id: number, countdown: Countdown): void {
    countdown.startedAt = this.now();
    countdown.timer = setTimeout(() => {
      this.countdowns.delete(id);
      this.toasts = this.toasts.filter((t) => t.id !== id);
      countdown.onExpire?.();
    }, countdown.remainingMs);
  }

  private pause(countdown: Countdown): void {
    if (countdown.timer === undefined || countdown.startedAt === undefined) return;
    clearTimeout(countdown.timer);
    countdown.remainingMs = Math.max(0, countdown.remainingMs - (this.now() - countdown.startedAt));
    delete countdown.timer;
    delete countdown.startedAt;
  }

  dispose(): void {
    for (const countdown of this.countdowns.values())
      if (countdown.timer !== undefined) clearTimeout(countdown.timer);
    this.countdowns.clear();
    this.holds.clear();
    this.toasts = [];
  }
}
