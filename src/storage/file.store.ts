import { z } from 'zod';
import { fileIdSchema, fileStatusSchema, projectIdSchema, type FileId } from '../core/model';
import type { FileStore, StoredFile } from '../core/ports';
import type { CarrelDb, FileRow } from './db';
import { guardStorage } from './guard';
import { parseStored } from './parse-row';

export const pageSpanSchema = z.object({
  page: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
});

/** Everything of a stored file except the blob, which backups carry as base64. */
export const fileMetadataSchema = z.object({
  id: fileIdSchema,
  projectId: projectIdSchema.nullable(),
  name: z.string(),
  mimeType: z.string(),
  sizeBytes: z.number().int().nonnegative(),
  hash: z.string(),
  status: fileStatusSchema,
  text: z.string().optional(),
  tokenCount: z.number().int().nonnegative(),
  error: z.string().optional(),
  pageMap: z.array(pageSpanSchema).optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
});

const storedFileSchema = fileMetadataSchema.extend({ blob: z.instanceof(Blob) });

export function fromFileRow(row: FileRow): StoredFile {
  return parseStored(storedFileSchema, row, `Stored file ${row.id}`);
}

export function createFileStore(db: CarrelDb): FileStore {
  return {
    put: (file) =>
      guardStorage(db, async () => {
        await db.files.put(parseStored(storedFileSchema, file, `File ${file.id}`));
      }),
    get: (id) =>
      guardStorage(db, async () => {
        const row = await db.files.get(id);
        return row === undefined ? undefined : fromFileRow(row);
      }),
    listByProject: (projectId) =>
      guardStorage(db, async () => {
        const rows = await db.files.where('projectId').equals(projectId).sortBy('createdAt');
        return rows.map(fromFileRow);
      }),
    findByHash: (hash) =>
      guardStorage(db, async () =>
        (await db.files.where('hash').equals(hash).toArray()).map(fromFileRow),
      ),
    delete: (id: FileId) =>
      guardStorage(db, () =>
        db.transaction('rw', [db.files, db.chunks], async () => {
          await db.chunks.where('fileId').equals(id).delete();
          await db.files.delete(id);
        }),
      ),
  };
}
