import type { Clock, Scheduler } from '../ports';
import type { StateContainer } from './state-container';

/** While streaming, the partial answer is saved at most this often (one small write each). */
export const CHECKPOINT_INTERVAL_MS = 1_000;

/**
 * Saves a state container at most once per interval while it streams, so closing the tab keeps
 * the partial answer. The interval runs from the end of the previous write, not from when it
 * was asked for: a write that waited (a busy disk, a slow transaction) must not bunch the next
 * one up against it. A change inside the interval, or during a write, schedules one trailing
 * write, so text that arrived just before the stream went quiet is saved too. Writes never
 * overlap; the first error is kept for `settle()`, never lost.
 */
export class Checkpointer {
  private lastWriteEndedAt: number;
  private lastRevision: number;
  private chain: Promise<void> = Promise.resolve();
  private cancelTimer: (() => void) | undefined;
  private isWriting = false;
  private failure: unknown;
  private isSettled = false;
  flushCount = 0;

  constructor(
    private readonly state: StateContainer,
    private readonly clock: Clock,
    private readonly scheduler: Scheduler,
    private readonly write: (state: StateContainer) => Promise<void>,
  ) {
    this.lastWriteEndedAt = clock.now();
    this.lastRevision = state.revision;
  }

  /** Call after every change; writes now, or once the interval is over. */
  maybeFlush(): void {
    if (
      this.isSettled ||
      this.isWriting ||
      this.cancelTimer ||
      this.state.revision === this.lastRevision
    )
      return;
    const wait = CHECKPOINT_INTERVAL_MS - (this.clock.now() - this.lastWriteEndedAt);
    if (wait <= 0) this.flush();
    else
      this.cancelTimer = this.scheduler.schedule(() => {
        this.cancelTimer = undefined;
        this.flush();
      }, wait);
  }

  private flush(): void {
    if (this.isSettled || this.state.revision === this.lastRevision) return;
    this.lastRevision = this.state.revision;
    this.isWriting = true;
    this.flushCount++;
    this.chain = this.chain
      .then(() => this.write(this.state))
      .catch((error: unknown) => {
        this.failure ??= error;
      })
      .finally(() => {
        this.isWriting = false;
        this.lastWriteEndedAt = this.clock.now();
        // Changes that arrived during the write get their trailing write one interval later.
        this.maybeFlush();
      });
  }

  /**
   * Stops checkpointing for good and waits for writes in flight; returns the first error. The
   * final save follows it, so no later checkpoint may overwrite that save with a stale status.
   */
  async settle(): Promise<unknown> {
    this.isSettled = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    await this.chain;
    return this.failure;
  }
}
