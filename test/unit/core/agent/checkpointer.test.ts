import { describe, expect, it } from 'vitest';
import { CHECKPOINT_INTERVAL_MS, Checkpointer } from '../../../../src/core/agent/checkpointer';
import { StateContainer } from '../../../../src/core/agent/state-container';
import { ManualScheduler } from '../../../fakes/manual-scheduler';

function setup() {
  let now = 0;
  const clock = { now: () => now, timeZone: () => 'UTC' };
  const scheduler = new ManualScheduler(clock.now);
  const state = new StateContainer(0);
  const writes: string[] = [];
  const checkpointer = new Checkpointer(state, clock, scheduler, (s) => {
    writes.push(s.steps.map((step) => step.text).join(''));
    return Promise.resolve();
  });
  return { state, scheduler, writes, checkpointer, advance: (ms: number) => (now += ms) };
}

describe('Checkpointer', () => {
  it('writes at most once per interval however many tokens arrive', async () => {
    const { state, writes, checkpointer, advance, scheduler } = setup();
    // 10 seconds of a 100 tokens/s stream; each token arrives in its own task, as from a socket.
    for (let i = 0; i < 1_000; i++) {
      state.appendText('x');
      checkpointer.maybeFlush();
      advance(10);
      scheduler.runDue();
      for (let tick = 0; tick < 5; tick++) await Promise.resolve();
    }
    await checkpointer.settle();
    expect(writes.length).toBeLessThanOrEqual(10_000 / CHECKPOINT_INTERVAL_MS + 1);
    expect(writes.length).toBeGreaterThanOrEqual(9);
  });

  it('schedules one trailing write for changes inside the interval', async () => {
    const { state, writes, checkpointer, scheduler } = setup();
    state.appendText('a');
    checkpointer.maybeFlush();
    state.appendText('b');
    checkpointer.maybeFlush();
    expect(writes).toEqual([]);
    expect(scheduler.pendingCount).toBe(1);
    scheduler.runPending();
    await checkpointer.settle();
    expect(writes).toEqual(['ab']);
  });

  it('never writes after settle(), so the final save cannot be overwritten by a stale checkpoint', async () => {
    const { state, writes, checkpointer, advance, scheduler } = setup();
    state.appendText('partial');
    await checkpointer.settle();
    state.finish('completed');
    advance(5_000);
    checkpointer.maybeFlush();
    scheduler.runPending();
    await Promise.resolve();
    expect(writes).toEqual([]);
  });

  it('does not write when nothing changed', async () => {
    const { writes, checkpointer, advance } = setup();
    advance(5_000);
    checkpointer.maybeFlush();
    await checkpointer.settle();
    expect(writes).toEqual([]);
  });

  it('keeps the first write error for settle() instead of losing it', async () => {
    let now = 0;
    const state = new StateContainer(0);
    const checkpointer = new Checkpointer(state, { now: () => (now += 2_000), timeZone: () => 'UTC' }, new ManualScheduler(), () =>
      Promise.reject(new Error('QuotaExceededError')),
    );
    state.appendText('x');
    checkpointer.maybeFlush();
    const failure = await checkpointer.settle();
    expect(failure).toBeInstanceOf(Error);
  });
});
