/// <reference lib="webworker" />
// First: zod without its eval probe, and CSP violations logged where tests can see them.
import '../../pwa/strict-csp';
import { expose } from 'comlink';
import { createTokenCounter } from '../../core/tokens';
import { createStores, openCarrelDb } from '../../storage';
import type { IngestWorkerApi } from './ingest.api';
import { createIngestHost } from './ingest-host';

/** The ingest worker: extraction (pdf.js, mammoth, linkedom), token counting and chunking. */
let hostPromise: Promise<IngestWorkerApi> | undefined;

function getHost(): Promise<IngestWorkerApi> {
  hostPromise ??= (async () => {
    const [db, tokens] = await Promise.all([openCarrelDb(), createTokenCounter()]);
    const clock = {
      now: () => Date.now(),
      timeZone: () => Intl.DateTimeFormat().resolvedOptions().timeZone,
    };
    const ids = { newId: () => crypto.randomUUID() };
    const { files, chunks } = createStores(db, clock, ids);
    return createIngestHost({ files, chunks, tokens, clock, ids });
  })();
  hostPromise.catch(() => {
    hostPromise = undefined;
  });
  return hostPromise;
}

const api: IngestWorkerApi = {
  ingestFile: async (...args) => (await getHost()).ingestFile(...args),
  cancel: async (jobId) => (await getHost()).cancel(jobId),
};

expose(api);
