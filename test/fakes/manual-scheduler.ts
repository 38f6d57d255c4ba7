import type { Scheduler } from '../../src/core/ports';

interface Timer {
  callback: () => void;
  dueAt: number;
  isCancelled: boolean;
}

/**
 * A Scheduler whose timers run only when the test says so: `runPending()` runs everything
 * scheduled so far; `runDue()` only what is due by the given clock.
 */
export class ManualScheduler implements Scheduler {
  private timers: Timer[] = [];

  constructor(private readonly now: () => number = () => 0) {}

  schedule(callback: () => void, ms: number): () => void {
    const timer: Timer = { callback, dueAt: this.now() + ms, isCancelled: false };
    this.timers.push(timer);
    return () => {
      timer.isCancelled = true;
    };
  }

  get pendingCount(): number {
    return this.timers.filter((t) => !t.isCancelled).length;
  }

  runPending(): void {
    this.run(() => true);
  }

  runDue(): void {
    const now = this.now();
    this.run((timer) => timer.dueAt <= now);
  }

  private run(isDue: (timer: Timer) => boolean): void {
    const due = this.timers.filter(isDue);
    this.timers = this.timers.filter((t) => !isDue(t));
    for (const timer of due) if (!timer.isCancelled) timer.callback();
  }
}
