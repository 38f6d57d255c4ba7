import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asFileId, type FileId } from '../../../../src/core/model';
import type { StoredFile } from '../../../../src/core/ports';
import { isSyncError } from '../../../../src/core/sync/sync-errors';
import { startCouchServer, type CouchServer } from '../../../couch/server';
import { connectPair, openReplica, syncSettings, syncUntilQuiet, type Replica } from './replicas';

const PASSPHRASE = 'correct horse battery staple';
let server: CouchServer;
let databaseCounter = 0;
const nextDatabase = () => `carrel-bytes-${++databaseCounter}`;

beforeAll(async () => {
  server = await startCouchServer();
});
afterAll(async () => {
  await server.close();
});

const ORIGINAL = 'Pangolin census, original bytes: 4,211 adults counted at dawn';

function buildFile(id: string, content: string): StoredFile {
  const bytes = Buffer.from(content);
  return {
    id: asFileId(id),
    projectId: null,
    name: 'pangolin-census.txt',
    mimeType: 'text/plain',
    sizeBytes: bytes.length,
    hash: createHash('sha256').update(bytes).digest('hex'),
    blob: new Blob([bytes], { type: 'text/plain' }),
    status: 'ready',
    text: 'Pangolin census (extracted text)',
    tokenCount: 6,
    createdAt: 1,
    updatedAt: 1,
  };
}

async function readContent(replica: Replica, id: FileId): Promise<string | undefined> {
  const file = await replica.stores.files.get(id);
  return file === undefined ? undefined : file.blob.text();
}

describe("a file's bytes through sync", { timeout: 60_000 }, () => {
  it('arrive as an encrypted attachment, fetched on the other device only when asked for', async () => {
    const { a, b, database } = await connectPair(server.url, nextDatabase(), PASSPHRASE);
    const file = buildFile('file-tapir', ORIGINAL);
    await a.stores.files.put(file);
    await syncUntilQuiet([a, b]);

    // The text and metadata are there at once; the bytes wait on the server.
    const arrived = await b.stores.files.get(file.id);
    expect(arrived?.text).toBe('Pangolin census (extracted text)');
    expect(arrived?.isBlobRemote).toBe(true);
    expect(arrived?.blob.size).toBe(0);
    const stored = await server.readStoredText(database);
    expect(stored).toContain('"_attachments"');
    for (const plain of ['Pangolin', '4,211', 'pangolin-census']) expect(stored).not.toContain(plain);

    await b.engine.fetchFileBytes(file.id);
    expect(await readContent(b, file.id)).toBe(ORIGINAL);
    const fetched = await b.stores.files.get(file.id);
    expect(fetched?.isBlobRemote).toBeUndefined();
    expect(fetched?.blob.type).toBe('text/plain');
    // Fetching changes only this device's copy: nothing new to send.
    expect(await b.sync.countPending()).toBe(0);
  });

  it('are sent once: later revisions name them, from a device that never fetched them too', async () => {
    const { a, b, database } = await connectPair(server.url, nextDatabase(), PASSPHRASE);
    const file = buildFile('file-okapi', ORIGINAL);
    await a.stores.files.put(file);
    await syncUntilQuiet([a, b]);
    const attachment = (await a.db.syncRecords.get('files/file-okapi'))?.attachment;
    expect(attachment?.hash).toBe(file.hash);

    // An edit on the device that has the bytes, then one on the device that does not.
    a.clock.advance(1000);
    await a.stores.files.put({ ...file, name: 'renamed-on-a.txt', updatedAt: 2 });
    await syncUntilQuiet([a, b]);
    b.clock.advance(5000);
    await b.db.files.update('file-okapi', { name: 'renamed-on-b.txt' });
    await syncUntilQuiet([a, b]);
    expect((await a.stores.files.get(file.id))?.name).toBe('renamed-on-b.txt');
    // The stub kept pointing at the bytes sent the first time.
    expect((await b.db.syncRecords.get('files/file-okapi'))?.attachment).toEqual(attachment);

    // A third device joins after both edits and still finds the original.
    const c = await openReplica('c');
    await c.engine.connect(syncSettings(server.url, database), PASSPHRASE, { isLive: false });
    await c.engine.syncNow();
    expect((await c.stores.files.get(file.id))?.isBlobRemote).toBe(true);
    await c.engine.fetchFileBytes(file.id);
    expect(await readContent(c, file.id)).toBe(ORIGINAL);
  });

  it('keep the bytes a device has when only the metadata changes elsewhere', async () => {
    const { a, b } = await connectPair(server.url, nextDatabase(), PASSPHRASE);
    const file = buildFile('file-ibis', ORIGINAL);
    await a.stores.files.put(file);
    await syncUntilQuiet([a, b]);
    await b.engine.fetchFileBytes(file.id);
    a.clock.advance(1000);
    await a.stores.files.put({ ...file, name: 'new-name.txt', updatedAt: 2 });
    await syncUntilQuiet([a, b]);
    const onB = await b.stores.files.get(file.id);
    expect(onB?.name).toBe('new-name.txt');
    expect(onB?.isBlobRemote).toBeUndefined();
    expect(await readContent(b, file.id)).toBe(ORIGINAL);
  });

  it('fail in words while the server is unreachable, and the file stays as it was', async () => {
    const { a, b } = await connectPair(server.url, nextDatabase(), PASSPHRASE);
    const file = buildFile('file-heron', ORIGINAL);
    await a.stores.files.put(file);
    await syncUntilQuiet([a, b]);
    await server.goOffline();
    try {
      const error: unknown = await b.engine
        .fetchFileBytes(file.id)
        .catch((caught: unknown) => caught);
      expect(isSyncError(error) && error.code).toBe('offline');
      expect((error as Error).message).toMatch(/Cannot reach the sync server/);
    } finally {
      await server.goOnline();
    }
    expect((await b.stores.files.get(file.id))?.isBlobRemote).toBe(true);
    await b.engine.fetchFileBytes(file.id);
    expect(await readContent(b, file.id)).toBe(ORIGINAL);
  });

  it('refuses bytes the server swapped for another file, storing nothing', async () => {
    const { a, b, database } = await connectPair(server.url, nextDatabase(), PASSPHRASE);
    const first = buildFile('file-first', ORIGINAL);
    const second = buildFile('file-second', 'Another file entirely');
    await a.stores.files.put(first);
    await a.stores.files.put(second);
    await syncUntilQuiet([a, b]);
    const firstDoc = (await a.db.syncRecords.get('files/file-first'))?.docId ?? '';
    const secondDoc = (await a.db.syncRecords.get('files/file-second'))?.docId ?? '';
    // The server puts the second file's (encrypted) bytes under the first file's document.
    const secondBytes = await (await fetch(`${server.url}/${database}/${secondDoc}/bytes`)).arrayBuffer();
    const current = (await (await fetch(`${server.url}/${database}/${firstDoc}`)).json()) as {
      _rev: string;
    };
    const swapped = await fetch(
      `${server.url}/${database}/${firstDoc}/bytes?rev=${current._rev}`,
      {
        method: 'PUT',
        headers: { 'Content-Type': 'application/octet-stream' },
        body: secondBytes,
      },
    );
    expect(swapped.ok).toBe(true);

    const error: unknown = await b.engine
      .fetchFileBytes(first.id)
      .catch((caught: unknown) => caught);
    expect(isSyncError(error) && error.code).toBe('tampered');
    expect((await b.stores.files.get(first.id))?.isBlobRemote).toBe(true);
  });

  it('say so when a file never reached the server with its bytes', async () => {
    const { b } = await connectPair(server.url, nextDatabase(), PASSPHRASE);
    await b.stores.files.put(buildFile('file-local', ORIGINAL));
    const error: unknown = await b.engine
      .fetchFileBytes(asFileId('file-local'))
      .catch((caught: unknown) => caught);
    expect(isSyncError(error) && error.code).toBe('missing_bytes');
    expect((error as Error).message).toMatch(/has not reached the sync server yet/);
  });
});
