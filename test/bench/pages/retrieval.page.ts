import { createCorpus, measureRetrieval } from '../lib/retrieval-workload';
import { measurePeers } from '../lib/retrieval-peers';

/** Bench 3 in Chromium: the same workloads as in Node, called by Playwright. */
Object.assign(globalThis, {
  benchReady: true,
  runRetrieval: (size: number, queryCount: number) =>
    measureRetrieval(size, queryCount, size <= 10_000),
  runRetrievalPeers: (size: number, queryCount: number, runs: number) => {
    const { chunks, queries } = createCorpus(size, queryCount);
    return measurePeers(chunks, queries, { runs, queryCount });
  },
});
