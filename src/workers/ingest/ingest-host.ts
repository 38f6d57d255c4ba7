import type { ProjectId } from '../../core/model';
import type { IngestOutcome, IngestWorkerApi } from './ingest.api';
import { ingestFile, type IngestDeps } from './ingest-file';
import { createMemoryFileStore } from '../../storage/memory-file.store';

/**
 * Where a file is read into: the database, or for a temporary chat's attachment a store of this
 * call alone, whose file goes back to the caller. Its chunks are kept nowhere: an attachment's
 * text travels whole in its message, and nothing searches a temporary chat's files.
 */
async function ingestInto(
  deps: IngestDeps,
  isTemporary: boolean,
  run: (stores: IngestDeps) => Promise<IngestOutcome>,
): Promise<IngestOutcome> {
  if (!isTemporary) return run(deps);
  const files = createMemoryFileStore();
  const outcome = await run({ ...deps, files, chunks: { replaceForFile: () => Promise.resolve() } });
  if (outcome.kind !== 'stored') return outcome;
  const file = await files.get(outcome.fileId);
  return file === undefined ? outcome : { ...outcome, file };
}

/**
 * Files read side by side. Each file gives way to the others while it counts and chunks, so a
 * huge file slows the rest a little instead of holding them back; more at once would only hold
 * more files' bytes in memory.
 */
export const MAX_FILES_AT_ONCE = 3;

/** The ingest worker's API over the stores, free of Comlink so tests drive it directly. */
export function createIngestHost(deps: IngestDeps): IngestWorkerApi {
  const jobs = new Map<string, AbortController>();
  const waiting: Array<() => void> = [];
  let running = 0;
  let lastAddedAt = Number.NEGATIVE_INFINITY;

  /** Now, or just after the file handed in before, so that the order of arrival is kept. */
  function nextAddedAt(): number {
    lastAddedAt = Math.max(deps.clock.now(), lastAddedAt + 1);
    return lastAddedAt;
  }

  /** Resolves once a slot is free; the caller must call `release` when done. */
  async function acquire(): Promise<void> {
    if (running < MAX_FILES_AT_ONCE) {
      running++;
      return;
    }
    // The releasing file hands its slot over directly, so `running` stays as it is.
    await new Promise<void>((resolve) => waiting.push(resolve));
  }

  function release(): void {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }

  return {
    async ingestFile(jobId, projectId, file, onProgress, isTemporary = false): Promise<IngestOutcome> {
      const controller = new AbortController();
      const addedAt = nextAddedAt();
      jobs.set(jobId, controller);
      try {
        await acquire();
        try {
          if (controller.signal.aborted) return { kind: 'cancelled' };
          return await ingestInto(deps, isTemporary, (stores) =>
            ingestFile(
              { ...file, projectId: projectId as ProjectId | null, addedAt },
              stores,
              onProgress,
              controller.signal,
            ),
          );
        } finally {
          release();
        }
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
