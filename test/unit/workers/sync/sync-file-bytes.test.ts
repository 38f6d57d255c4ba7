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
const REPLACED = 'Pangolin recount, new bytes: 5,032 adults counted at dusk';

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
    for (const plain of ['Pangolin', '4,211', 'pangolin-census'])
      expect(stored).not.toContain(plain);

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
    // The stub kept pointing at the bytes sent the first time, now by the newest revision.
    const onB = await b.db.syncRecords.get('files/file-okapi');
    expect(onB?.attachment).toEqual({ ...attachment, rev: onB?.rev });

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

  // Device a replaces the file's bytes while device b renames it; either may reach the server first.
  for (const order of ['new bytes first', 'rename first'] as const) {
    it(`merge new bytes on one device with a rename on the other (${order})`, async () => {
      const { a, b, database } = await connectPair(server.url, nextDatabase(), PASSPHRASE);
      const file = buildFile('file-egret', ORIGINAL);
      await a.stores.files.put(file);
      await syncUntilQuiet([a, b]);
      await b.engine.fetchFileBytes(file.id);

      const replaced = {
        ...buildFile('file-egret', REPLACED),
        text: 'Pangolin recount (extracted text)',
        tokenCount: 5,
        updatedAt: 2,
      };
      a.clock.advance(1000);
      await a.stores.files.put(replaced);
      b.clock.advance(5000);
      await b.stores.files.put({
        ...(await b.stores.files.get(file.id))!,
        name: 'renamed-on-b.txt',
        updatedAt: 3,
      });
      const [first, second] = order === 'new bytes first' ? [a, b] : [b, a];
      await first.engine.syncNow();
      await second.engine.syncNow();
      await syncUntilQuiet([a, b]);

      for (const replica of [a, b]) {
        const merged = await replica.stores.files.get(file.id);
        expect(merged?.name).toBe('renamed-on-b.txt');
        expect(merged?.hash).toBe(replaced.hash);
        expect(merged?.sizeBytes).toBe(replaced.sizeBytes);
        expect(merged?.text).toBe('Pangolin recount (extracted text)');
        expect(await replica.sync.countPending()).toBe(0);
      }
      // The device that made the new bytes keeps them; the other fetches them, not the old ones.
      expect(await readContent(a, file.id)).toBe(REPLACED);
      expect((await b.stores.files.get(file.id))?.isBlobRemote).toBe(true);
      await b.engine.fetchFileBytes(file.id);
      const fetched = await b.stores.files.get(file.id);
      const fetchedBytes = Buffer.from(await fetched!.blob.arrayBuffer());
      expect(fetchedBytes.toString()).toBe(REPLACED);
      expect(createHash('sha256').update(fetchedBytes).digest('hex')).toBe(replaced.hash);

      // Each side's version lost a field to the merge: both are kept in history.
      const history = [
        ...(await a.sync.listHistory('files/file-egret')),
        ...(await b.sync.listHistory('files/file-egret')),
      ];
      expect(
        history.some(
          (entry) => entry.body.hash === file.hash && entry.body.name === 'renamed-on-b.txt',
        ),
      ).toBe(true);
      expect(
        history.some((entry) => entry.body.hash === replaced.hash && entry.body.name === file.name),
      ).toBe(true);

      // A device that joins afterwards gets the merged record and the new bytes.
      const c = await openReplica('c');
      await c.engine.connect(syncSettings(server.url, database), PASSPHRASE, { isLive: false });
      await c.engine.syncNow();
      expect((await c.stores.files.get(file.id))?.name).toBe('renamed-on-b.txt');
      await c.engine.fetchFileBytes(file.id);
      expect(await readContent(c, file.id)).toBe(REPLACED);

      const stored = await server.readStoredText(database);
      for (const plain of [
        'Pangolin',
        'recount',
        '4,211',
        '5,032',
        'renamed-on-b',
        'pangolin-census',
      ])
        expect(stored).not.toContain(plain);
    });
  }

  it('fetch the bytes of the version a device holds while newer bytes wait on the server', async () => {
    const { a, b } = await connectPair(server.url, nextDatabase(), PASSPHRASE);
    const file = buildFile('file-stork', ORIGINAL);
    await a.stores.files.put(file);
    await syncUntilQuiet([a, b]);
    // b renames the file, a replaces its bytes and syncs; b has not pulled that yet.
    b.clock.advance(5000);
    await b.stores.files.put({
      ...(await b.stores.files.get(file.id))!,
      name: 'renamed-on-b.txt',
      updatedAt: 3,
    });
    a.clock.advance(1000);
    await a.stores.files.put({ ...buildFile('file-stork', REPLACED), updatedAt: 2 });
    await a.engine.syncNow();

    await b.engine.fetchFileBytes(file.id);
    const onB = await b.stores.files.get(file.id);
    expect(await onB!.blob.text()).toBe(ORIGINAL);
    expect(onB?.hash).toBe(file.hash);
    expect(onB?.name).toBe('renamed-on-b.txt');

    // Once b syncs, the merge holds the new bytes, which b fetches in their turn.
    await syncUntilQuiet([a, b]);
    expect((await b.stores.files.get(file.id))?.isBlobRemote).toBe(true);
    await b.engine.fetchFileBytes(file.id);
    expect(await readContent(b, file.id)).toBe(REPLACED);
    expect((await b.stores.files.get(file.id))?.name).toBe('renamed-on-b.txt');
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
    const { a, database } = await connectPair(server.url, nextDatabase(), PASSPHRASE);
    const first = buildFile('file-first', ORIGINAL);
    const second = buildFile('file-second', 'Another file entirely');
    await a.stores.files.put(first);
    await a.stores.files.put(second);
    await a.engine.syncNow();
    const firstDoc = (await a.db.syncRecords.get('files/file-first'))?.docId ?? '';
    const secondDoc = (await a.db.syncRecords.get('files/file-second'))?.docId ?? '';
    // The server answers every request for the first file's bytes, whatever the revision,
    // with the second file's (encrypted) bytes.
    const swapping: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : input.toString());
      if (url.pathname.endsWith(`/${firstDoc}/bytes`))
        return fetch(`${server.url}/${database}/${secondDoc}/bytes`, init);
      return fetch(input, init);
    };
    const c = await openReplica('c', { fetch: swapping });
    await c.engine.connect(syncSettings(server.url, database), PASSPHRASE, { isLive: false });
    await c.engine.syncNow();

    const error: unknown = await c.engine
      .fetchFileBytes(first.id)
      .catch((caught: unknown) => caught);
    expect(isSyncError(error) && error.code).toBe('tampered');
    expect((await c.stores.files.get(first.id))?.isBlobRemote).toBe(true);
    expect((await c.stores.files.get(first.id))?.blob.size).toBe(0);
  });

  it('keep the bytes of the revision a device knows when the server makes a revision of its own', async () => {
    const { a, b, database } = await connectPair(server.url, nextDatabase(), PASSPHRASE);
    const first = buildFile('file-first', ORIGINAL);
    const second = buildFile('file-second', 'Another file entirely');
    await a.stores.files.put(first);
    await a.stores.files.put(second);
    await syncUntilQuiet([a, b]);
    const firstDoc = (await a.db.syncRecords.get('files/file-first'))?.docId ?? '';
    const secondDoc = (await a.db.syncRecords.get('files/file-second'))?.docId ?? '';
    // The server puts the second file's bytes under the first file's document: a new revision.
    const secondBytes = await (
      await fetch(`${server.url}/${database}/${secondDoc}/bytes`)
    ).arrayBuffer();
    const current = (await (await fetch(`${server.url}/${database}/${firstDoc}`)).json()) as {
      _rev: string;
    };
    const swapped = await fetch(`${server.url}/${database}/${firstDoc}/bytes?rev=${current._rev}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: secondBytes,
    });
    expect(swapped.ok).toBe(true);

    await b.engine.fetchFileBytes(first.id);
    expect(await readContent(b, first.id)).toBe(ORIGINAL);
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
