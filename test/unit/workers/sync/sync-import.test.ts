/**
 * A backup import and sync on the same device: what an undone import wrote never reaches another
 * device as the data, and sync waits while an import may still be undone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asSessionId } from '../../../../src/core/model';
import { isSyncError } from '../../../../src/core/sync/sync-errors';
import {
  beginImport,
  commitImport,
  createUndoRecorder,
  journaledTables,
  undoImport,
} from '../../../../src/storage/backup/import-journal';
import type { CarrelDb } from '../../../../src/storage/db';
import { startCouchServer, type CouchServer } from '../../../couch/server';
import { buildSession } from '../../storage/storage-fixtures';
import { connectPair, readSyncedState, syncUntilQuiet } from './replicas';

const PASSPHRASE = 'correct horse battery staple';
let server: CouchServer;
let databaseCounter = 0;

beforeAll(async () => {
  server = await startCouchServer();
});
afterAll(async () => {
  await server.close();
});

function connectedPair() {
  return connectPair(server.url, `carrel-import-${++databaseCounter}`, PASSPHRASE, {
    kdfIterations: 100_000,
  });
}

/** One batch of an import, journaled as the backup importer does: a rename and a new chat. */
async function importBatch(db: CarrelDb, importId: string): Promise<void> {
  await beginImport(db, importId, 0);
  const undo = createUndoRecorder(importId);
  await db.transaction('rw', journaledTables(db), async () => {
    const before = await db.sessions.get('s1');
    if (before === undefined) throw new Error('The seeded chat is missing.');
    undo.record('sessions', 's1', before);
    await db.sessions.put({ ...before, title: 'Title from the backup' });
    undo.record('sessions', 's2', await db.sessions.get('s2'));
    await db.sessions.put(buildSession({ id: asSessionId('s2'), title: 'Only in the backup' }));
    await undo.flush(db.importUndo);
  });
}

describe('a backup import on a syncing device', { timeout: 60_000 }, () => {
  it('an undone import reaches the other device as the data it put back, nothing it wrote', async () => {
    const { a, b } = await connectedPair();
    await a.stores.sessions.create(buildSession({ id: asSessionId('s1'), title: 'Before' }));
    await syncUntilQuiet([a, b]);

    await importBatch(a.db, 'import-1');
    await undoImport(a.db, 'import-1');
    await syncUntilQuiet([a, b]);

    expect((await b.stores.sessions.get(asSessionId('s1')))?.title).toBe('Before');
    expect(await b.stores.sessions.get(asSessionId('s2'))).toBeUndefined();
    expect(await readSyncedState(b.db)).toEqual(await readSyncedState(a.db));
    expect(await a.sync.countPending()).toBe(0);
  });

  it('waits while an import is under way, then sends what it committed', async () => {
    const { a, b } = await connectedPair();
    await a.stores.sessions.create(buildSession({ id: asSessionId('s1'), title: 'Before' }));
    await syncUntilQuiet([a, b]);

    await importBatch(a.db, 'import-2');
    const refused = await a.engine.syncNow().catch((error: unknown) => error);
    expect(isSyncError(refused) && refused.code).toBe('import_underway');
    expect(a.engine.status().state).toBe('waiting_for_import');
    // Nothing of the unfinished import left this device.
    await b.engine.syncNow();
    expect((await b.stores.sessions.get(asSessionId('s1')))?.title).toBe('Before');

    await commitImport(a.db, 'import-2');
    await syncUntilQuiet([a, b]);
    expect((await b.stores.sessions.get(asSessionId('s1')))?.title).toBe('Title from the backup');
    expect((await b.stores.sessions.get(asSessionId('s2')))?.title).toBe('Only in the backup');
  });
});
