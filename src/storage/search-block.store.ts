/**
 * Each file's share of its project's search index (core/rag/search-block.ts builds and checks
 * the contents). A row's revision moves on with every write of the file's chunks, in the same
 * transaction, and the block goes with it: a block built from chunks read before a write can
 * then no longer be stored, so a stored block always matches the file's chunks.
 */
import type { FileId } from '../core/model';
import type { FileSearchBlock, SearchBlockStore } from '../core/ports';
import { fromChunkRow } from './chunk.store';
import type { CarrelDb } from './db';
import { guardStorage } from './guard';
import { readSnapshotGeneration } from './search-block-revisions';
import { encodeSearchSnapshot, openStoredSnapshot } from './search-snapshot-codec';

/**
 * The row's shape, checked by hand: zod would copy every id list of a large
 * project on each opening. Whether the arrays agree with each other is checked where they are
 * read (core/rag/search-block.ts).
 */
function isBlockShaped(value: unknown, fileId: string): value is FileSearchBlock {
  if (!isRecord(value) || value.fileId !== fileId) return false;
  const { keywords, vectors } = value;
  return (
    typeof value.format === 'number' &&
    typeof value.title === 'string' &&
    isStringArray(value.chunkIds) &&
    isStringArray(value.locations) &&
    isRecord(keywords) &&
    typeof keywords.terms === 'string' &&
    typeof keywords.textTermCount === 'number' &&
    Array.isArray(keywords.fields) &&
    keywords.fields.length === 2 &&
    keywords.fields.every(isFieldShaped) &&
    isRecord(vectors) &&
    isStringArray(vectors.models) &&
    vectors.rowModels instanceof Int32Array &&
    vectors.offsets instanceof Uint32Array &&
    vectors.values instanceof Float32Array
  );
}

function isFieldShaped(field: unknown): boolean {
  return (
    isRecord(field) &&
    field.docStarts instanceof Uint32Array &&
    (field.termRefs instanceof Uint16Array || field.termRefs instanceof Uint32Array) &&
    (field.frequencies instanceof Uint8Array || field.frequencies instanceof Uint16Array) &&
    field.lengths instanceof Uint16Array
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

export function createSearchBlockStore(db: CarrelDb): SearchBlockStore {
  return {
    readSnapshot: (projectId) =>
      guardStorage(db, async () => {
        const row = await db.searchSnapshots.get(projectId);
        return {
          generation: row?.generation ?? 0,
          // A snapshot that does not read is joined again from the blocks.
          snapshot: row?.snapshot == null ? null : openStoredSnapshot(row.snapshot),
        };
      }),
    putSnapshot: (projectId, snapshot, generation) =>
      guardStorage(db, () => {
        const stored = encodeSearchSnapshot(snapshot);
        return db.transaction('rw', [db.files, db.searchSnapshots], async () => {
          // A project deleted meanwhile has no files left: its row must not come back.
          const [someFile, current] = await Promise.all([
            db.files.where('projectId').equals(projectId).limit(1).primaryKeys(),
            readSnapshotGeneration(db, projectId),
          ]);
          if (someFile.length === 0 || current !== generation) return false;
          await db.searchSnapshots.put({ projectId, generation, snapshot: stored });
          return true;
        });
      }),
    listByProject: (projectId) =>
      guardStorage(db, async () => {
        const rows = await db.searchBlocks.where('projectId').equals(projectId).toArray();
        const blocks = new Map<FileId, FileSearchBlock>();
        for (const row of rows) {
          if (row.block === null) continue;
          // A block that does not read is rebuilt from the chunks, so it is simply left out.
          if (isBlockShaped(row.block, row.fileId)) blocks.set(row.fileId as FileId, row.block);
        }
        return blocks;
      }),
    readChunks: (fileId) =>
      guardStorage(db, () =>
        db.transaction('r', [db.chunks, db.searchBlocks], async () => {
          const [row, chunkRows] = await Promise.all([
            db.searchBlocks.get(fileId),
            db.chunks.where('fileId').equals(fileId).toArray(),
          ]);
          const chunks = chunkRows.map(fromChunkRow).sort((a, b) => a.ordinal - b.ordinal);
          return { revision: row?.revision ?? 0, chunks };
        }),
      ),
    put: (block, revision) =>
      guardStorage(db, () =>
        db.transaction('rw', [db.files, db.searchBlocks], async () => {
          const [file, row] = await Promise.all([
            db.files.get(block.fileId),
            db.searchBlocks.get(block.fileId),
          ]);
          if (file === undefined || (row?.revision ?? 0) !== revision) return false;
          await db.searchBlocks.put({
            fileId: block.fileId,
            projectId: block.projectId,
            revision,
            block,
          });
          return true;
        }),
      ),
  };
}
