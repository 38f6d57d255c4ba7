import { describe, expect, it } from 'vitest';
import { createGenerationLink } from '../../../../src/workers/generation/generation-link';

interface FakeWorker {
  name: string;
}

describe("the agent worker's link to the generation worker", () => {
  it('asks the page once for a fresh worker when answers fail on one together, and gives each the new one', async () => {
    const released: string[] = [];
    const link = createGenerationLink<FakeWorker>({ release: (old) => released.push(old.name) });
    const first = { name: 'first' };
    let asked = 0;
    link.connect(first, () => asked++);
    const signal = new AbortController().signal;
    const renewals = [link.renew(first, signal), link.renew(first, signal)];
    expect(asked).toBe(1);
    const fresh = { name: 'fresh' };
    link.connect(fresh, () => asked++);
    expect(await Promise.all(renewals)).toEqual([fresh, fresh]);
    expect(link.current()).toBe(fresh);
    expect(released).toEqual(['first']);
    // A failure reported on a worker already replaced is answered with the current one.
    expect(await link.renew(first, signal)).toBe(fresh);
    expect(asked).toBe(1);
  });

  it('gives up with null when no worker comes within the wait, or the answer is stopped first', async () => {
    const link = createGenerationLink<FakeWorker>({ waitMs: 20 });
    const only = { name: 'only' };
    let asked = 0;
    link.connect(only, () => asked++);
    expect(await link.renew(only, new AbortController().signal)).toBeNull();
    const stop = new AbortController();
    const stopped = link.renew(only, stop.signal);
    stop.abort();
    expect(await stopped).toBeNull();
    expect(asked).toBe(2);
    expect(await link.renew(only, stop.signal)).toBeNull();
    expect(asked).toBe(2);
  });

  it('gives up with null when asking the page fails', async () => {
    const link = createGenerationLink<FakeWorker>();
    const only = { name: 'only' };
    link.connect(only, () => {
      throw new Error('The page is gone.');
    });
    expect(await link.renew(only, new AbortController().signal)).toBeNull();
  });

  it('has nothing to renew before the page connected a worker', async () => {
    const link = createGenerationLink<FakeWorker>();
    expect(link.current()).toBeNull();
    expect(await link.renew({ name: 'never connected' }, new AbortController().signal)).toBeNull();
  });
});
