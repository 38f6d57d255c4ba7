import { describe, expect, it } from 'vitest';
import { CHECKPOINT_INTERVAL_MS, Checkpointer } from '../../../../src/core/agent/checkpointer';
import { StateContainer } from '../../../../src/core/agent/state-container';
import { ManualScheduler } from '../../../fakes/manual-scheduler';

/** Lets pending promise callbacks (the write chain) run. */
async function settleMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe('Checkpointer pacing', () => {
  it('starts the next write a full interval after a slow write ended, not after it was asked for', async () => {
    let now = 0;
    const clock = { now: () => now, timeZone: () => 'UTC' };
    const scheduler = new ManualScheduler(clock.now);
    const state = new StateContainer(0);
    const startedAt: number[] = [];
    let finishWrite: () => void = () => undefined;
    const checkpointer = new Checkpointer(state, clock, scheduler, () => {
      startedAt.push(now);
      return new Promise<void>((resolve) => (finishWrite = resolve));
    });
    const streamFor = async (ms: number) => {
      for (let elapsed = 0; elapsed < ms; elapsed += 10) {
        state.appendText('x');
        checkpointer.maybeFlush();
        now += 10;
        scheduler.runDue();
        await settleMicrotasks();
      }
    };

    await streamFor(1_000);
    expect(startedAt).toEqual([1_000]);
    // The first write takes 700 ms (a busy disk) while tokens keep arriving.
    await streamFor(700);
    finishWrite();
    await settleMicrotasks();
    await streamFor(1_200);
    finishWrite();

    expect(startedAt).toHaveLength(2);
    expect((startedAt[1] as number) - 1_700).toBeGreaterThanOrEqual(CHECKPOINT_INTERVAL_MS);
    await checkpointer.settle();
  });
});
