import { z } from 'zod';
import { fileIdSchema, projectIdSchema } from '../core/model';
import type { ChunkStore, TextChunk } from '../core/ports';
import type { CarrelDb, ChunkRow } from './db';
import { guardStorage } from './guard';
import { parseStored } from './parse-row';
import { invalidateSearchBlocks } from './search-block-revisions';

/** A chunk without its vector; rows and backups each add the vector in their own encoding. */
export const chunkMetadataSchema = z.object({
  id: z.string().min(1),
  fileId: fileIdSchema,
  projectId: projectIdSchema.nullable(),
  ordinal: z.number().int().nonnegative(),
  text: z.string(),
  tokenCount: z.number().int().nonnegative(),
  location: z.string().optional(),
  embeddingModel: z.string().nullable(),
});

const chunkRowSchema = chunkMetadataSchema.extend({
  embedding: z.instanceof(ArrayBuffer).nullable(),
});

/**
 * Copies the vector's own bytes: a Float32Array may be a view on a larger buffer. A chunk
 * without a vector keeps no model name, so counting by model counts vectors.
 */
export function toChunkRow(chunk: TextChunk): ChunkRow {
  const { embedding, ...rest } = chunk;
  if (embedding === null) return { ...rest, embedding: null, embeddingModel: null };
  return { ...rest, embedding: new Float32Array(embedding).buffer };
}

export function fromChunkRow(row: ChunkRow): TextChunk {
  const { embedding, ...rest } = parseStored(chunkRowSchema, row, `Stored chunk ${row.id}`);
  return { ...rest, embedding: embedding === null ? null : new Float32Array(embedding) };
}

const byOrdinal = (a: TextChunk, b: TextChunk) => a.ordinal - b.ordinal;

export function createChunkStore(db: CarrelDb): ChunkStore {
  return {
    replaceForFile: (fileId, chunks) =>
      guardStorage(db, () =>
        db.transaction('rw', [db.chunks, db.searchBlocks, db.searchSnapshots], async () => {
          const projectId = chunks[0]?.projectId ?? (await db.searchBlocks.get(fileId))?.projectId;
          // Only chunks that are gone are deleted: a chunk written again unchanged (its vector
          // saved) is no change to sync, where deleting and re-adding it would be two.
          const kept = new Set(chunks.map((chunk) => chunk.id));
          const stored = await db.chunks.where('fileId').equals(fileId).primaryKeys();
          await db.chunks.bulkDelete(stored.filter((id) => !kept.has(id)));
          await db.chunks.bulkPut(chunks.map((chunk) => toChunkRow({ ...chunk, fileId })));
          await invalidateSearchBlocks(db, [{ fileId, projectId: projectId ?? null }]);
        }),
      ),
    listByFile: (fileId) =>
      guardStorage(db, async () =>
        (await db.chunks.where('fileId').equals(fileId).toArray())
          .map(fromChunkRow)
          .sort(byOrdinal),
      ),
    listByProject: (projectId) =>
      guardStorage(db, async () =>
        (await db.chunks.where('projectId').equals(projectId).toArray())
          .map(fromChunkRow)
          .sort((a, b) => (a.fileId < b.fileId ? -1 : a.fileId > b.fileId ? 1 : byOrdinal(a, b))),
      ),
    getMany: (ids) =>
      guardStorage(db, async () =>
        (await db.chunks.bulkGet([...ids])).map((row) =>
          row === undefined ? undefined : fromChunkRow(row),
        ),
      ),
    countByProject: (projectId, embeddingModel) =>
      guardStorage(db, () =>
        db.transaction('r', db.chunks, async () => ({
          total: await db.chunks.where('projectId').equals(projectId).count(),
          embedded: await db.chunks
            .where('[projectId+embeddingModel]')
            .equals([projectId, embeddingModel])
            .count(),
        })),
      ),
  };
}
