import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jobStarter, lazyHost, parseCall, type CallKinds, type WorkerResult } from '../../../src/workers/protocol';

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
});
