import type { ProjectId } from '../../core/model';
import type { IngestWorkerApi } from './ingest.api';
import { ingestFile, type IngestDeps, type IngestOutcome } from './ingest-file';

/** The ingest worker's API over the stores, free of Comlink so tests drive it directly. */
export function createIngestHost(deps: IngestDeps): IngestWorkerApi {
  const jobs = new Map<string, AbortController>();
  return {
    async ingestFiles(jobId, projectId, files, onProgress) {
      const controller = new AbortController();
      jobs.set(jobId, controller);
      const outcomes: IngestOutcome[] = [];
      try {
        for (const [index, file] of files.entries()) {
          if (controller.signal.aborted) {
            outcomes.push({ kind: 'cancelled' });
            continue;
          }
          outcomes.push(
            await ingestFile(
              { key: String(index), projectId: projectId as ProjectId | null, ...file },
              deps,
              onProgress,
              controller.signal,
            ),
          );
        }
        return outcomes;
      } finally {
        jobs.delete(jobId);
      }
    },
    cancel(jobId) {
      jobs.get(jobId)?.abort();
      return Promise.resolve();
    },
  };
}
