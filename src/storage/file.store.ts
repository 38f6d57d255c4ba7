import { z } from 'zod';
import { Dexie } from 'dexie';
import { asFileId, fileIdSchema, fileStatusSchema, projectIdSchema, type FileId } from '../core/model';
import type { FileInfo, FileName, FileStore, StoredFile } from '../core/ports';
import type { CarrelDb, FileRow, FileTextRow } from './db';
import { compareIds } from '../util/compare';
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

/** A file's text row (`fileTexts`): its extracted text and page map, keyed by the file. */
export const fileTextSchema = z.object({
  fileId: fileIdSchema,
  projectId: projectIdSchema.nullable(),
  text: z.string().optional(),
  pageMap: z.array(pageSpanSchema).optional(),
});

/** Whether the bytes are still only on the sync server: this device's own, never synced. */
const blobStateSchema = z.object({ isBlobRemote: z.boolean().optional() });

export const storedFileSchema = fileMetadataSchema
  .extend({ blob: z.instanceof(Blob) })
  .extend(blobStateSchema.shape);

const fileInfoSchema = fileMetadataSchema
  .omit({ text: true, pageMap: true })
  .extend(blobStateSchema.shape);

/** A file's metadata row and, apart, its text row: listing files never reads their text. */
export function toFileRows(file: StoredFile): { row: FileRow; text: FileTextRow } {
  const { text, pageMap, ...row } = parseStored(storedFileSchema, file, `File ${file.id}`);
  return {
    row,
    text: {
      fileId: row.id,
      projectId: row.projectId,
      ...(text === undefined ? {} : { text }),
      ...(pageMap === undefined ? {} : { pageMap }),
    },
  };
}

/** The stored file from its metadata row and text row (absent text: the file has none). */
export function fromFileRow(row: FileRow, text?: FileTextRow): StoredFile {
  const joined =
    text === undefined
      ? row
      : {
          ...row,
          ...(text.text === undefined ? {} : { text: text.text }),
          ...(text.pageMap === undefined ? {} : { pageMap: text.pageMap }),
        };
  return parseStored(storedFileSchema, joined, `Stored file ${row.id}`);
}

export function toFileInfo(row: FileRow): FileInfo {
  const { blob: _blob, ...info } = row;
  return parseStored(fileInfoSchema, info, `Stored file ${row.id}`);
}

/** The stored files of these rows, each with its text, in the rows' order. */
export async function joinFileTexts(db: CarrelDb, rows: readonly FileRow[]): Promise<StoredFile[]> {
  const texts = await db.fileTexts.bulkGet(rows.map((row) => row.id));
  return rows.map((row, index) => fromFileRow(row, texts[index]));
}

/** Writes files with their texts; the caller holds a transaction over files and fileTexts. */
export async function putFiles(
  db: Pick<CarrelDb, 'files' | 'fileTexts'>,
  files: readonly StoredFile[],
): Promise<void> {
  const split = files.map(toFileRows);
  await db.fileTexts.bulkPut(split.map(({ text }) => text));
  await db.files.bulkPut(split.map(({ row }) => row));
}

export function createFileStore(db: CarrelDb): FileStore {
  return {
    put: (file) =>
      guardStorage(db, () =>
        db.transaction('rw', [db.files, db.fileTexts], () => putFiles(db, [file])),
      ),
    get: (id) =>
      guardStorage(db, () =>
        db.transaction('r', [db.files, db.fileTexts], async () => {
          const row = await db.files.get(id);
          return row === undefined ? undefined : fromFileRow(row, await db.fileTexts.get(id));
        }),
      ),
    listByProject: (projectId) =>
      guardStorage(db, () =>
        db.transaction('r', [db.files, db.fileTexts], async () =>
          joinFileTexts(db, await db.files.where('projectId').equals(projectId).sortBy('createdAt')),
        ),
      ),
    listInfoByProject: (projectId) =>
      guardStorage(db, async () =>
        (await db.files.where('projectId').equals(projectId).sortBy('createdAt')).map(toFileInfo),
      ),
    listNamesByProject: (projectId) =>
      guardStorage(db, async () => {
        const names: FileName[] = [];
        await db.files
          .where('[projectId+name]')
          .between([projectId, Dexie.minKey], [projectId, Dexie.maxKey])
          .eachKey((key, cursor) => {
            const name = Array.isArray(key) ? key[1] : undefined;
            if (typeof name !== 'string' || typeof cursor.primaryKey !== 'string')
              throw new Error(`Stored file ${String(cursor.primaryKey)}: its name index is not a name`);
            names.push({ id: asFileId(cursor.primaryKey), name });
          });
        return names.sort(compareIds);
      }),
    getInfo: (id: FileId) =>
      guardStorage(db, async () => {
        const row = await db.files.get(id);
        return row === undefined ? undefined : toFileInfo(row);
      }),
    findByHash: (hash) =>
      guardStorage(db, async () =>
        (await db.files.where('hash').equals(hash).toArray()).map(toFileInfo),
      ),
    delete: (id: FileId) =>
      guardStorage(db, () =>
        db.transaction('rw', [db.files, db.fileTexts, db.chunks, db.searchBlocks], async () => {
          await db.chunks.where('fileId').equals(id).delete();
          await db.searchBlocks.delete(id);
          await db.fileTexts.delete(id);
          await db.files.delete(id);
        }),
      ),
  };
}
