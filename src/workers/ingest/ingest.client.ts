import { proxy, releaseProxy, wrap, type Remote } from 'comlink';
import type {
  IngestFileInput,
  IngestOutcome,
  IngestProgressListener,
  IngestWorkerApi,
} from './ingest.api';

export type {
  IngestErrorCode,
  IngestFileInput,
  IngestOutcome,
  IngestProgress,
  IngestProgressListener,
  IngestStage,
} from './ingest.api';

export interface IngestJob {
  result: Promise<IngestOutcome[]>;
  cancel(): void;
}

/** The UI side of the ingest worker. */
export interface IngestClient {
  /** `files` straight from an input, a drop or a paste: `{ name, mimeType: file.type, blob: file }`. */
  ingestFiles(
    projectId: string | null,
    files: IngestFileInput[],
    onProgress: IngestProgressListener,
  ): IngestJob;
  dispose(): void;
}

export function createIngestClient(): IngestClient {
  const worker = new Worker(new URL('./ingest.worker.ts', import.meta.url), {
    type: 'module',
    name: 'ingest',
  });
  const api: Remote<IngestWorkerApi> = wrap<IngestWorkerApi>(worker);
  let jobCounter = 0;
  return {
    ingestFiles(projectId, files, onProgress) {
      const jobId = `ingest-${++jobCounter}`;
      return {
        result: api.ingestFiles(jobId, projectId, files, proxy(onProgress)),
        cancel: () => void api.cancel(jobId),
      };
    },
    dispose() {
      api[releaseProxy]();
      worker.terminate();
    },
  };
}
