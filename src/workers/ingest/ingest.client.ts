import { proxy } from 'comlink';
import { connectRenewing, type WorkerJob } from '../protocol';
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

/** One file of a job: its own outcome and its own cancel. */
export type IngestFileJob = WorkerJob<IngestOutcome>;

export interface IngestJob {
  /** One per file, in the order given; each settles as soon as its file is done. */
  files: IngestFileJob[];
  /** Every file's outcome, in order, once all are done. */
  result: Promise<IngestOutcome[]>;
  /** Cancels every file still being read. */
  cancel(): void;
}

/** The UI side of the ingest worker. */
export interface IngestClient {
  /** `files` straight from an input, a drop or a paste: `{ name, mimeType: file.type, blob: file }`. */
  ingestFiles(
    projectId: string | null,
    files: IngestFileInput[],
    onProgress: IngestProgressListener,
    /** Attachments of a temporary chat: read in memory, handed back, never stored. */
    isTemporary?: boolean,
  ): IngestJob;
  dispose(): void;
}

/** Starts one worker job per file (progress keys are the files' positions). */
export function startIngestJob(
  api: Pick<IngestWorkerApi, 'ingestFile' | 'cancel'>,
  jobId: string,
  projectId: string | null,
  files: readonly IngestFileInput[],
  onProgress: IngestProgressListener,
  isTemporary = false,
): IngestJob {
  const perFile = files.map((file, index): IngestFileJob => {
    const fileJobId = `${jobId}/${index}`;
    return {
      result: api.ingestFile(fileJobId, projectId, { ...file, key: String(index) }, onProgress, isTemporary),
      cancel: () => void api.cancel(fileJobId).catch(() => undefined),
    };
  });
  return {
    files: perFile,
    result: Promise.all(perFile.map((file) => file.result)),
    cancel: () => perFile.forEach((file) => file.cancel()),
  };
}

export function createIngestClient(): IngestClient {
  const worker = connectRenewing<IngestWorkerApi>(
    () => new Worker(new URL('./ingest.worker.ts', import.meta.url), { type: 'module', name: 'ingest' }),
  );
  const { call } = worker;
  const api: Pick<IngestWorkerApi, 'ingestFile' | 'cancel'> = {
    ingestFile: (...args) => call((remote) => remote.ingestFile(...args)),
    cancel: (fileJobId) => call((remote) => remote.cancel(fileJobId)),
  };
  let jobCounter = 0;
  return {
    ingestFiles(projectId, files, onProgress, isTemporary = false) {
      return startIngestJob(api, `ingest-${++jobCounter}`, projectId, files, proxy(onProgress), isTemporary);
    },
    dispose: () => worker.dispose(),
  };
}
