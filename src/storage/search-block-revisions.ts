/** The write side of search blocks: what every writer of chunks calls in its transaction. */
import { Dexie } from 'dexie';
import type { CarrelDb, SearchBlockRow, SearchSnapshotRow } from './db';

/** The project's snapshot generation (0 before any), read from the index, not the row. */
export async function readSnapshotGeneration(
  db: Pick<CarrelDb, 'searchSnapshots'>,
  projectId: string,
): Promise<number> {
  const keys = await db.searchSnapshots
    .where('[projectId+generation]')
    .between([projectId, Dexie.minKey], [projectId, Dexie.maxKey])
    .keys();
  const key = keys[0];
  return Array.isArray(key) && typeof key[1] === 'number' ? key[1] : 0;
}

/**
 * Drops the blocks of these files and moves their revisions on, and drops the snapshots of
 * their projects and moves their generations on. Call it inside the transaction that writes
 * their chunks (it needs `searchBlocks` and `searchSnapshots` in that transaction's tables).
 */
export async function invalidateSearchBlocks(
  db: Pick<CarrelDb, 'searchBlocks' | 'searchSnapshots'>,
  files: ReadonlyArray<{ fileId: string; projectId: string | null }>,
): Promise<void> {
  if (files.length === 0) return;
  const projectIds = [
    ...new Set(files.flatMap(({ projectId }) => (projectId === null ? [] : [projectId]))),
  ];
  await dropSnapshots(db, projectIds);
  const current = await db.searchBlocks.bulkGet(files.map((file) => file.fileId));
  await db.searchBlocks.bulkPut(
    files.map(
      ({ fileId, projectId }, index): SearchBlockRow => ({
        fileId,
        projectId,
        revision: (current[index]?.revision ?? 0) + 1,
        block: null,
      }),
    ),
  );
}

/** Drops these projects' snapshots and moves their generations on. */
async function dropSnapshots(
  db: Pick<CarrelDb, 'searchSnapshots'>,
  projectIds: readonly string[],
): Promise<void> {
  const generations = await Promise.all(
    projectIds.map((projectId) => readSnapshotGeneration(db, projectId)),
  );
  await db.searchSnapshots.bulkPut(
    projectIds.map(
      (projectId, index): SearchSnapshotRow => ({
        projectId,
        generation: (generations[index] as number) + 1,
        snapshot: null,
      }),
    ),
  );
}

/**
 * Drops every project's snapshot and moves every generation on, those of projects that have
 * files but no snapshot yet included: for writes that put chunks back without saying whose
 * they are (an import's undo). Call it inside the transaction that writes them.
 */
export async function dropAllSnapshots(
  db: Pick<CarrelDb, 'files' | 'searchSnapshots'>,
): Promise<void> {
  const [withFiles, withSnapshots] = await Promise.all([
    db.files.orderBy('projectId').uniqueKeys(),
    db.searchSnapshots.toCollection().primaryKeys(),
  ]);
  const projectIds = new Set([...withFiles, ...withSnapshots].map(String));
  await dropSnapshots(db, [...projectIds]);
}
