/** The write side of search blocks: what every writer of chunks calls in its transaction. */
import type { CarrelDb, SearchBlockRow } from './db';

/**
 * Drops the blocks of these files and moves their revisions on. Call it inside the transaction
 * that writes their chunks (it needs `searchBlocks` in that transaction's tables).
 */
export async function invalidateSearchBlocks(
  db: Pick<CarrelDb, 'searchBlocks'>,
  files: ReadonlyArray<{ fileId: string; projectId: string | null }>,
): Promise<void> {
  if (files.length === 0) return;
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
