import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asProjectId } from '../../../src/core/model';
import { createTokenCounter } from '../../../src/core/tokens';
import { createStores } from '../../../src/storage';
import type { CarrelDb } from '../../../src/storage/db';
import type { IngestDeps } from '../../../src/workers/ingest/ingest-file';
import {
  startIngestJob,
  type IngestClient,
  type IngestFileInput,
  type IngestOutcome,
  type IngestProgressListener,
} from '../../../src/workers/ingest/ingest.client';
import { createIngestHost } from '../../../src/workers/ingest/ingest-host';
import { buildFrozenClock } from '../../builders/clock';
import { openTestDb } from '../storage/storage-fixtures';

export const FIXTURES = join(import.meta.dirname, '../../fixtures/documents');
export const PROJECT = asProjectId('project-1');

/** Real stores on a fresh fake-indexeddb database, the real token counter, frozen time. */
export async function createRagStores(): Promise<
  IngestDeps & ReturnType<typeof createStores> & { db: CarrelDb }
> {
  const db = await openTestDb();
  const clock = buildFrozenClock();
  let counter = 0;
  const ids = { newId: () => `file-${++counter}` };
  const stores = createStores(db, clock, ids);
  return { ...stores, tokens: await createTokenCounter(), clock, ids, db };
}

export function fixtureInput(name: string, mimeType = '') {
  return { name, mimeType, blob: new Blob([readFileSync(join(FIXTURES, name))]) };
}

/** The real ingest host over these stores, behind the client's shape (no worker in Node). */
export function createInlineIngest(deps: IngestDeps): IngestClient {
  const host = createIngestHost(deps);
  let job = 0;
  return {
    ingestFiles: (projectId, files, onProgress, isTemporary) =>
      startIngestJob(host, `job-${++job}`, projectId, files, onProgress, isTemporary),
    dispose: () => undefined,
  };
}

/** Ingests the files together and resolves with every outcome, in order. */
export function ingestAll(
  deps: IngestDeps,
  projectId: string | null,
  files: IngestFileInput[],
  onProgress: IngestProgressListener = () => undefined,
): Promise<IngestOutcome[]> {
  return createInlineIngest(deps).ingestFiles(projectId, files, onProgress).result;
}
