import { measureRetrieval } from '../lib/retrieval-workload';

/** Bench 3 in Chromium: the same workload as in Node, called by Playwright. */
Object.assign(globalThis, {
  benchReady: true,
  runRetrieval: (size: number, queryCount: number) =>
    measureRetrieval(size, queryCount, size <= 10_000),
});
