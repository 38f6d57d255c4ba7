/// <reference lib="webworker" />
// First: zod without its eval probe, and CSP violations logged where tests can see them.
import '../../boot/strict-csp';
import { createTokenCounter } from '../../core/tokens';
import { createStores, openCarrelDb } from '../../storage';
import { lazyHost, serve, WORKER_CLOCK, WORKER_IDS } from '../protocol';
import { INGEST_CALLS, type IngestWorkerApi } from './ingest.api';
import { createIngestHost } from './ingest-host';

/** The ingest worker: extraction (pdf.js, mammoth, linkedom), token counting and chunking. */
serve(
  lazyHost<IngestWorkerApi>(INGEST_CALLS, async () => {
    const [db, tokens] = await Promise.all([openCarrelDb(), createTokenCounter()]);
    const { files, chunks } = createStores(db, WORKER_CLOCK, WORKER_IDS);
    return createIngestHost({ files, chunks, tokens, clock: WORKER_CLOCK, ids: WORKER_IDS });
  }),
);
