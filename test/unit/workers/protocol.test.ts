import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  connectRenewing,
  jobStarter,
  lazyHost,
  parseCall,
  serve,
  type CallKinds,
  type WorkerEndpoint,
  type WorkerResult,
} from '../../../src/workers/protocol';

interface Api {
  count(text: string): Promise<WorkerResult<number>>;
  stats(): Promise<number>;
}
const CALLS: CallKinds<Api> = { count: 'result', stats: 'throws' };

describe('the worker protocol', () => {
  it('reports a failed set-up on the call, and sets up again on the next one', async () => {
    let attempts = 0;
    const api = lazyHost<Api>(CALLS, () => {
      attempts++;
      if (attempts === 1) return Promise.reject(new Error('The database could not open.'));
      return Promise.resolve({ count: (text) => Promise.resolve({ ok: true, value: text.length }), stats: () => Promise.resolve(7) });
    });
    expect(await api.count('abc')).toEqual({ ok: false, error: { code: 'worker_setup', message: 'The database could not open.' } });
    expect(await api.count('abcd')).toEqual({ ok: true, value: 4 });
    expect(await api.stats()).toBe(7);
    expect(attempts).toBe(2);
  });

  it('rejects a call that answers no result when set-up failed', async () => {
    const api = lazyHost<Api>(CALLS, () => Promise.reject(new Error('No storage.')));
    await expect(api.stats()).rejects.toThrow('No storage.');
  });

  it('turns a request its schema refuses into invalid_request with the first issue', () => {
    const schema = z.object({ query: z.string().min(1, 'Type something to search for.') });
    expect(parseCall(schema, { query: '' }, 'Invalid search.')).toEqual({
      ok: false,
      error: { code: 'invalid_request', message: 'Type something to search for.' },
    });
    expect(parseCall(schema, { query: 'x' }, 'Invalid search.')).toEqual({ ok: true, value: { query: 'x' } });
  });

  it('starts jobs under distinct ids and cancels each by its own', async () => {
    const cancelled: string[] = [];
    const start = jobStarter('embedding', (jobId) => {
      cancelled.push(jobId);
      return Promise.resolve();
    });
    const ids: string[] = [];
    const first = start((jobId) => {
      ids.push(jobId);
      return Promise.resolve({ ok: true, value: 1 });
    });
    start((jobId) => {
      ids.push(jobId);
      return Promise.resolve({ ok: true, value: 2 });
    });
    first.cancel();
    expect(await first.result).toEqual({ ok: true, value: 1 });
    expect(ids).toEqual(['embedding-1', 'embedding-2']);
    expect(cancelled).toEqual(['embedding-1']);
  });

  describe('a worker whose set-up failed', () => {
    const working = (): Promise<Api> =>
      Promise.resolve({ count: (text) => Promise.resolve({ ok: true, value: text.length }), stats: () => Promise.resolve(7) });
    /** A worker that cannot load a module fails every set-up for its whole life, as a browser's does. */
    const poisoned = (): Promise<Api> => Promise.reject(new Error('Failed to fetch dynamically imported module'));

    /** Workers on message channels, each serving the host its position in `hosts` builds. */
    function workers(hosts: (() => Promise<Api>)[]) {
      const started: { terminated: boolean }[] = [];
      const start = (): WorkerEndpoint => {
        const build = hosts[started.length] ?? working;
        const record = { terminated: false };
        started.push(record);
        const channel = new MessageChannel();
        serve(lazyHost<Api>(CALLS, build), channel.port1);
        const port = channel.port2;
        return {
          postMessage: (message: unknown, transfer?: Transferable[]) => port.postMessage(message, transfer ?? []),
          addEventListener: (type: string, listener: EventListenerOrEventListenerObject) => port.addEventListener(type as 'message', listener),
          removeEventListener: (type: string, listener: EventListenerOrEventListenerObject) => port.removeEventListener(type as 'message', listener),
          start: () => port.start(),
          terminate() {
            record.terminated = true;
            channel.port1.close();
          },
        };
      };
      return { start, started };
    }

    it('answers the call from a fresh worker, and ends the one that failed', async () => {
      const { start, started } = workers([poisoned]);
      const connection = connectRenewing<Api>(start);
      expect(await connection.call((api) => api.count('abc'))).toEqual({ ok: true, value: 3 });
      expect(await connection.call((api) => api.stats())).toBe(7);
      expect(started).toEqual([{ terminated: true }, { terminated: false }]);
      connection.dispose();
      expect(started[1]?.terminated).toBe(true);
    });

    it('does the same for a call that answers no result, whose set-up failure is thrown', async () => {
      const { start, started } = workers([poisoned]);
      const connection = connectRenewing<Api>(start);
      expect(await connection.call((api) => api.stats())).toBe(7);
      expect(started.length).toBe(2);
      connection.dispose();
    });

    it('answers a second failure as it is, and starts another worker on the next call', async () => {
      const { start, started } = workers([poisoned, poisoned]);
      const connection = connectRenewing<Api>(start);
      expect(await connection.call((api) => api.count('abc'))).toEqual({
        ok: false,
        error: { code: 'worker_setup', message: 'Failed to fetch dynamically imported module' },
      });
      await expect(connection.call((api) => api.stats())).resolves.toBe(7);
      expect(started.map((worker) => worker.terminated)).toEqual([true, true, false]);
      connection.dispose();
    });

    it('keeps the worker when a call fails for its own reasons', async () => {
      const { start, started } = workers([
        () => Promise.resolve({ count: () => Promise.resolve({ ok: false, error: { code: 'internal', message: 'No.' } }), stats: () => Promise.reject(new Error('Broken.')) }),
      ]);
      const connection = connectRenewing<Api>(start);
      expect(await connection.call((api) => api.count('abc'))).toEqual({ ok: false, error: { code: 'internal', message: 'No.' } });
      await expect(connection.call((api) => api.stats())).rejects.toThrow('Broken.');
      expect(started).toEqual([{ terminated: false }]);
      connection.dispose();
    });

    it('hands each worker started what onStart gives it', async () => {
      const { start } = workers([poisoned]);
      const starts: number[] = [];
      const connection = connectRenewing<Api>(start, () => starts.push(starts.length + 1));
      await connection.call((api) => api.count('a'));
      await connection.call((api) => api.count('b'));
      expect(starts).toEqual([1, 2]);
      connection.dispose();
    });

    it('is renewed on request, for a failure seen through a port: a fresh worker starts at once and the old one ends after its calls', async () => {
      let finishSlow = null as ((value: WorkerResult<number>) => void) | null;
      const slowHost = (): Promise<Api> =>
        Promise.resolve({ count: () => new Promise<WorkerResult<number>>((resolve) => (finishSlow = resolve)), stats: () => Promise.resolve(1) });
      const { start, started } = workers([slowHost]);
      const starts: number[] = [];
      const connection = connectRenewing<Api>(start, () => starts.push(starts.length + 1));
      const slow = connection.call((api) => api.count('slow'));
      await expect.poll(() => starts).toEqual([1]);
      connection.renew();
      expect(starts).toEqual([1, 2]);
      // The call under way on the old worker still answers; then that worker ends.
      expect(started[0]?.terminated).toBe(false);
      await expect.poll(() => finishSlow !== null).toBe(true);
      expect(started[0]?.terminated).toBe(false);
      finishSlow?.({ ok: true, value: 42 });
      expect(await slow).toEqual({ ok: true, value: 42 });
      expect(started[0]?.terminated).toBe(true);
      // New calls go to the fresh worker, which no renewal started twice.
      expect(await connection.call((api) => api.stats())).toBe(7);
      expect(started.map((worker) => worker.terminated)).toEqual([true, false]);
      connection.dispose();
      connection.renew();
      expect(started.length).toBe(2);
    });

    it('ends a failed worker only once no other call on it is still running', async () => {
      let attempts = 0;
      let finishSlow: (value: WorkerResult<number>) => void = () => undefined;
      // The first set-up fails; a call arriving at the same worker right after sets it up again
      // and is still running when the failed call moves to a fresh worker.
      const flaky = (): Promise<Api> => {
        attempts++;
        if (attempts === 1) return Promise.reject(new Error('The database is busy.'));
        return Promise.resolve({
          count: () => new Promise<WorkerResult<number>>((resolve) => (finishSlow = resolve)),
          stats: () => Promise.resolve(1),
        });
      };
      const { start, started } = workers([flaky]);
      const connection = connectRenewing<Api>(start);
      const failing = connection.call((api) => api.stats());
      const slow = connection.call((api) => api.count('slow'));
      expect(await failing).toBe(7);
      await expect.poll(() => attempts).toBe(2);
      expect(started[0]?.terminated).toBe(false);
      finishSlow({ ok: true, value: 42 });
      expect(await slow).toEqual({ ok: true, value: 42 });
      expect(started[0]?.terminated).toBe(true);
      connection.dispose();
    });
  });
});
