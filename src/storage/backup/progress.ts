import type { BackupProgress } from '../../core/ports';

/** Reports about every half per cent: often enough for a smooth bar, rarely enough to be free. */
const STEPS = 200;

/** Counts work done towards a known total and tells the listener when a step's worth is done. */
export function createProgressReporter(
  total: number,
  onProgress: ((progress: BackupProgress) => void) | undefined,
) {
  let done = 0;
  let reported = -1;
  const step = Math.max(1, Math.floor(total / STEPS));
  const report = () => {
    reported = done;
    onProgress?.({ done, total });
  };
  report();
  return {
    advance(amount: number): void {
      done = Math.min(total, done + amount);
      if (done - reported >= step) report();
    },
    moveTo(position: number): void {
      done = Math.min(total, position);
      if (done - reported >= step) report();
    },
    finish(): void {
      done = total;
      if (reported !== done) report();
    },
  };
}
