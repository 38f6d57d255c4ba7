import { describe, expect, it } from 'vitest';
import { loadOnce } from '../../../src/app/lib/load-once';

describe('loadOnce', () => {
  it('imports once and hands every caller the same promise', async () => {
    let calls = 0;
    const load = loadOnce(() => {
      calls++;
      return Promise.resolve({ default: 'screen' });
    });
    const first = load();
    expect(load()).toBe(first);
    await expect(first).resolves.toEqual({ default: 'screen' });
    expect(load()).toBe(first);
    expect(calls).toBe(1);
  });

  it('tries again on the next call after a failed load', async () => {
    let calls = 0;
    const load = loadOnce(() => {
      calls++;
      return calls === 1 ? Promise.reject(new Error('offline')) : Promise.resolve('loaded');
    });
    await expect(load()).rejects.toThrow('offline');
    await expect(load()).resolves.toBe('loaded');
    expect(calls).toBe(2);
  });
});
