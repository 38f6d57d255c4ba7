import { Dexie } from 'dexie';
import { describe, expect, it } from 'vitest';
import { asFileId, asProjectId } from '../../../src/core/model';
import { createBackupService } from '../../../src/storage/backup/backup';
import { createChunkStore } from '../../../src/storage/chunk.store';
import { CURRENT_SCHEMA_VERSION, openCarrelDb, SCHEMA_V5 } from '../../../src/storage/db';
import { createFileStore } from '../../../src/storage/file.store';
import { createProjectStore } from '../../../src/storage/project.store';
import { createFrozenClock, createTestIndexedDb } from './storage-fixtures';

/** A version 5 file row: text and page map inline, as Carrel stored them until version 6. */
function buildV5File(id: string, createdAt: number) {
  return {
    id,
    projectId: 'p1',
    name: `${id}.md`,
    mimeType: 'text/markdown',
    sizeBytes: 11,
    hash: `hash-${id}`,
    blob: new Blob(['likes hills'], { type: 'text/markdown' }),
    status: 'ready',
    text: `text of ${id}`,
    tokenCount: 3,
    pageMap: [{ page: 1, offset: 0 }],
    createdAt,
    updatedAt: createdAt,
  };
}

describe('schema version 6', () => {
  it('moves every file text out of the file rows and keeps what the stores read', async () => {
    const dexie = createTestIndexedDb();
    const old = new Dexie('upgrade-v6', dexie);
    old.version(5).stores(SCHEMA_V5);
    await old.open();
    // More files than one upgrade step moves, so the steps join up.
    await old.table('files').bulkAdd(Array.from({ length: 120 }, (_, i) => buildV5File(`f${String(i).padStart(3, '0')}`, i)));
    await old.table('files').add({ ...buildV5File('bare', 500), status: 'processing', text: undefined, pageMap: undefined });
    await old.table('chunks').bulkAdd([
      { id: 'c1', fileId: 'f000', projectId: 'p1', ordinal: 0, text: 'likes', tokenCount: 1, embedding: new Float32Array([1, 0]).buffer, embeddingModel: 'minilm' },
      { id: 'c2', fileId: 'f000', projectId: 'p1', ordinal: 1, text: 'hills', tokenCount: 1, embedding: null, embeddingModel: null },
    ]);
    old.close();

    const db = await openCarrelDb('upgrade-v6', { dexie });
    expect(db.verno).toBe(CURRENT_SCHEMA_VERSION);
    const files = createFileStore(db);
    expect(await db.files.filter((row) => 'text' in row || 'pageMap' in row).count()).toBe(0);
    const f7 = await files.get(asFileId('f007'));
    expect(f7).toMatchObject({ text: 'text of f007', pageMap: [{ page: 1, offset: 0 }], status: 'ready' });
    expect(await f7?.blob.text()).toBe('likes hills');
    const listed = await files.listByProject(asProjectId('p1'));
    expect(listed).toHaveLength(121);
    expect(listed.every((file) => file.status === 'processing' || file.text === `text of ${file.id}`)).toBe(true);
    expect(await files.get(asFileId('bare'))).not.toHaveProperty('text');
    expect(await createChunkStore(db).countByProject(asProjectId('p1'), 'minilm')).toEqual({ total: 2, embedded: 1 });
    // Version 7's search blocks start empty: they are built from the chunks on the first search.
    expect(await db.searchBlocks.count()).toBe(0);
    db.close();
  });

  it.each([
    ['the whole database', { kind: 'all' }],
    ['one project', { kind: 'project', projectId: asProjectId('p1') }],
  ] as const)('carries file texts through a backup of %s and back', async (_label, scope) => {
    const clock = createFrozenClock();
    const source = await openCarrelDb('backup-source', { dexie: createTestIndexedDb() });
    await createProjectStore(source, clock).put({ id: asProjectId('p1'), name: 'Hills', instructions: '', defaultModel: null, defaultAgentId: null, createdAt: 1, updatedAt: 1 });
    await createFileStore(source).put({ ...buildV5File('f1', 1), id: asFileId('f1'), projectId: asProjectId('p1'), status: 'ready' });
    const blob = await createBackupService(source, clock).exportBackup(scope);
    source.close();
    const target = await openCarrelDb('backup-target', { dexie: createTestIndexedDb() });
    await createBackupService(target, clock).importBackup(blob);
    expect(await createFileStore(target).get(asFileId('f1'))).toMatchObject({ text: 'text of f1', pageMap: [{ page: 1, offset: 0 }] });
    expect(await target.files.get('f1')).not.toHaveProperty('text');
    target.close();
  });
});
