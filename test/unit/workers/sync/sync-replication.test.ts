import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { asMessageId, asProviderId, asSessionId } from '../../../../src/core/model';
import { isSyncError } from '../../../../src/core/sync/sync-errors';
import { startCouchServer, type CouchServer } from '../../../couch/server';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
} from '../../storage/storage-fixtures';
import {
  connectPair,
  openReplica,
  readSyncedState,
  syncSettings,
  syncUntilQuiet,
} from './replicas';

const PASSPHRASE = 'correct horse battery staple';
let server: CouchServer;
let databaseCounter = 0;
const nextDatabase = () => `carrel-sync-${++databaseCounter}`;

beforeAll(async () => {
  server = await startCouchServer();
});
afterAll(async () => {
  await server.close();
});

/** The ids of every live document in `database`, sorted. */
async function readDocIds(database: string): Promise<string[]> {
  const response = await fetch(`${server.url}/${database}/_all_docs`);
  const all = (await response.json()) as { rows: { id: string }[] };
  return all.rows.map((row) => row.id).sort();
}

function connectedPair() {
  return connectPair(server.url, nextDatabase(), PASSPHRASE);
}

describe('sync between devices through a CouchDB-protocol server', { timeout: 60_000 }, () => {
  it('converges two devices that each added chats while offline, losing no message', async () => {
    const { a, b } = await connectedPair();
    await a.stores.sessions.create(
      buildSession({ id: asSessionId('sa'), title: 'Trip to Lisbon' }),
    );
    await a.stores.messages.put(buildUserMessage('a1', null, { sessionId: asSessionId('sa') }));
    await a.stores.messages.put(
      buildAssistantMessage('a2', 'a1', { sessionId: asSessionId('sa') }),
    );
    await b.stores.sessions.create(
      buildSession({ id: asSessionId('sb'), title: 'Sourdough notes' }),
    );
    await b.stores.messages.put(buildUserMessage('b1', null, { sessionId: asSessionId('sb') }));

    await syncUntilQuiet([a, b]);

    expect(await readSyncedState(a.db)).toEqual(await readSyncedState(b.db));
    const chain = await b.stores.messages.loadVisibleChain(asSessionId('sa'));
    expect(chain.map((message) => message.id)).toEqual(['a1', 'a2']);
    expect((await a.stores.sessions.get(asSessionId('sb')))?.title).toBe('Sourdough notes');
  });

  it('keeps answers added to the same chat on both devices as branches', async () => {
    const { a, b } = await connectedPair();
    await a.stores.sessions.create(buildSession({ id: asSessionId('s1') }));
    await a.stores.messages.put(buildUserMessage('q', null));
    await syncUntilQuiet([a, b]);
    // Offline on both: each regenerates the answer.
    a.clock.advance(1000);
    b.clock.advance(2000);
    await a.stores.messages.put(buildAssistantMessage('from-a', 'q'));
    await b.stores.messages.put(buildAssistantMessage('from-b', 'q'));
    await syncUntilQuiet([a, b]);

    for (const replica of [a, b]) {
      const siblings = await replica.stores.messages.siblings(asMessageId('from-a'));
      expect(siblings.ids.sort()).toEqual(['from-a', 'from-b']);
    }
    expect(await readSyncedState(a.db)).toEqual(await readSyncedState(b.db));
    // The later edit's leaf is the visible one on both.
    expect((await a.stores.sessions.get(asSessionId('s1')))?.currentLeafId).toBe('from-b');
  });

  it('merges concurrent edits of one record field by field and keeps the losing version', async () => {
    const { a, b } = await connectedPair();
    await a.stores.sessions.create(buildSession({ id: asSessionId('s1'), title: 'Draft' }));
    await syncUntilQuiet([a, b]);
    a.clock.advance(1000);
    await a.stores.sessions.update(asSessionId('s1'), { title: 'Title from A' });
    b.clock.advance(5000);
    await b.stores.sessions.update(asSessionId('s1'), { isPinned: true });
    await syncUntilQuiet([a, b]);

    for (const replica of [a, b]) {
      const session = await replica.stores.sessions.get(asSessionId('s1'));
      expect(session?.title).toBe('Title from A');
      expect(session?.isPinned).toBe(true);
    }
    const history = [
      ...(await a.sync.listHistory('sessions/s1')),
      ...(await b.sync.listHistory('sessions/s1')),
    ];
    expect(
      history.some((entry) => entry.body.title === 'Title from A' && entry.body.isPinned === false),
    ).toBe(true);
  });

  it('delivers a deletion: the chat and its messages disappear on the other device', async () => {
    const { a, b } = await connectedPair();
    await a.stores.sessions.create(buildSession({ id: asSessionId('s1') }));
    await a.stores.messages.put(buildUserMessage('m1', null));
    await syncUntilQuiet([a, b]);
    expect(await b.stores.sessions.get(asSessionId('s1'))).toBeDefined();

    await a.stores.sessions.delete(asSessionId('s1'));
    await syncUntilQuiet([a, b]);

    expect(await b.stores.sessions.get(asSessionId('s1'))).toBeUndefined();
    expect(await b.stores.messages.get(asMessageId('m1'))).toBeUndefined();
    expect((await b.db.syncRecords.get('sessions/s1'))?.isDeleted).toBe(true);
  });

  it('syncs saved prompts: one added on a device, edited on the other, deleted, everywhere', async () => {
    const { a, b, database } = await connectedPair();
    const prompt = {
      id: 'prompt-ibis',
      title: 'Heron digest',
      text: 'Summarise {{topic}} for a heron watcher',
      createdAt: 1,
      updatedAt: 1,
    };
    await a.stores.prompts.put(prompt);
    await syncUntilQuiet([a, b]);
    expect(await b.stores.prompts.get('prompt-ibis')).toEqual(prompt);

    b.clock.advance(1000);
    await b.stores.prompts.put({ ...prompt, title: 'Egret digest', updatedAt: 2 });
    await syncUntilQuiet([a, b]);
    expect((await a.stores.prompts.get('prompt-ibis'))?.title).toBe('Egret digest');
    const stored = await server.readStoredText(database);
    for (const secret of ['Heron', 'Egret', 'heron watcher', 'prompt-ibis'])
      expect(stored, secret).not.toContain(secret);

    await a.stores.prompts.delete('prompt-ibis');
    await syncUntilQuiet([a, b]);
    expect(await b.stores.prompts.list()).toEqual([]);
  });

  it('skips a synced prompt that fails its schema and stores the rest', async () => {
    const { a, b } = await connectedPair();
    await a.stores.prompts.put({
      id: 'kept',
      title: 'Kept',
      text: 'A fine prompt',
      createdAt: 1,
      updatedAt: 1,
    });
    // A row no Carrel form would write (no text): it reaches the server, but not b's table.
    await a.db.prompts.put({ id: 'broken', title: 'Broken', text: '', createdAt: 1, updatedAt: 1 });
    await syncUntilQuiet([a, b]);
    expect((await b.stores.prompts.list()).map((prompt) => prompt.id)).toEqual(['kept']);
    expect(b.engine.status().skipped.join(' ')).toMatch(/synced prompts record is invalid/);
  });

  it('refuses a wrong passphrase on a second device and writes nothing, here or on the server', async () => {
    const database = nextDatabase();
    const a = await openReplica('a');
    await a.engine.connect(syncSettings(server.url, database), PASSPHRASE, { isLive: false });
    await a.stores.sessions.create(buildSession({ id: asSessionId('s1') }));
    await a.engine.syncNow();
    const before = await server.readStoredText(database);

    const b = await openReplica('b');
    await b.stores.settings.set('theme', 'dark');
    const stateBefore = await b.db.syncState.toArray();
    const recordsBefore = await b.db.syncRecords.toArray();
    const error: unknown = await b.engine
      .connect(syncSettings(server.url, database), 'not the passphrase', { isLive: false })
      .catch((caught: unknown) => caught);

    expect(isSyncError(error) && error.code).toBe('wrong_passphrase');
    expect((error as Error).message).toMatch(/passphrase does not open/);
    expect(await b.db.syncState.toArray()).toEqual(stateBefore);
    expect(await b.db.syncRecords.toArray()).toEqual(recordsBefore);
    expect(await b.stores.sessions.get(asSessionId('s1'))).toBeUndefined();
    expect(await server.readStoredText(database)).toBe(before);
    expect(b.engine.status().state).toBe('off');
  });

  it('stores no plaintext on the server: no title, message, file text, key or record id', async () => {
    const { a, b, database } = await connectedPair();
    await a.stores.sessions.create(
      buildSession({ id: asSessionId('session-zebra'), title: 'Quokka itinerary' }),
    );
    await a.stores.messages.put(
      buildUserMessage('message-okapi', null, {
        sessionId: asSessionId('session-zebra'),
        text: 'Where do axolotls live?',
      }),
    );
    await a.stores.files.put({
      id: 'file-tapir' as never,
      projectId: null,
      name: 'narwhal-report.txt',
      mimeType: 'text/plain',
      sizeBytes: 11,
      hash: 'h',
      blob: new Blob(['pangolin']),
      status: 'ready',
      text: 'Pangolin census figures',
      tokenCount: 3,
      createdAt: 1,
      updatedAt: 1,
    });
    await a.stores.providers.put({
      id: asProviderId('p1'),
      name: 'Wombat AI',
      kind: 'openai',
      preset: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-secret-capybara-key',
      keyOrigin: 'https://api.openai.com',
      headers: {},
      models: ['gpt-4o-mini'],
      contextWindowOverrides: {},
      createdAt: 1,
      updatedAt: 1,
    });
    await syncUntilQuiet([a, b]);
    expect((await b.stores.sessions.get(asSessionId('session-zebra')))?.title).toBe(
      'Quokka itinerary',
    );

    const stored = await server.readStoredText(database);
    // The search below looks at real documents: encrypted bodies of every record.
    expect(stored.match(/"carrel":1/g)?.length ?? 0).toBeGreaterThanOrEqual(4);
    for (const secret of [
      'Quokka',
      'axolotl',
      'Pangolin',
      'narwhal',
      'Wombat',
      'capybara',
      'session-zebra',
      'message-okapi',
      'file-tapir',
      'sessions',
      'messages',
    ]) {
      expect(stored, secret).not.toContain(secret);
    }
    // Keys stay home unless key sync is on.
    expect((await b.stores.providers.get(asProviderId('p1')))?.apiKey).toBe('');
  });

  it('sends provider keys, encrypted, only when key sync is on', async () => {
    const database = nextDatabase();
    const a = await openReplica('a');
    const b = await openReplica('b');
    const settings = syncSettings(server.url, database, { shouldSyncKeys: true });
    await a.engine.connect(settings, PASSPHRASE, { isLive: false });
    await b.engine.connect(settings, PASSPHRASE, { isLive: false });
    await a.stores.providers.put({
      id: asProviderId('p1'),
      name: 'OpenAI',
      kind: 'openai',
      preset: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-secret-capybara-key',
      keyOrigin: 'https://api.openai.com',
      headers: {},
      models: ['gpt-4o-mini'],
      contextWindowOverrides: {},
      createdAt: 1,
      updatedAt: 1,
    });
    await syncUntilQuiet([a, b]);
    const provider = await b.stores.providers.get(asProviderId('p1'));
    expect(provider?.apiKey).toBe('sk-secret-capybara-key');
    expect(provider?.keyOrigin).toBe('https://api.openai.com');
    expect(await server.readStoredText(database)).not.toContain('capybara');
  });

  it('sends chunk texts without their vectors, and keeps a vector where the text is unchanged', async () => {
    const { a, b, database } = await connectedPair();
    const chunk = {
      id: 'f1:0',
      fileId: 'f1' as never,
      projectId: null,
      ordinal: 0,
      text: 'Okapis browse at dawn',
      tokenCount: 5,
      embedding: new Float32Array([0.25, 0.5]),
      embeddingModel: 'model-a',
    };
    await a.stores.chunks.replaceForFile('f1' as never, [chunk]);
    const firstRev = (await a.db.syncRecords.get('chunks/f1:0'))?.rev;
    // Saving the vector again (an embedding run) is no change to sync.
    await a.stores.chunks.replaceForFile('f1' as never, [
      { ...chunk, embedding: new Float32Array([0.75, 0.5]) },
    ]);
    expect((await a.db.syncRecords.get('chunks/f1:0'))?.rev).toBe(firstRev);
    await syncUntilQuiet([a, b]);

    const arrived = await b.stores.chunks.listByFile('f1' as never);
    expect(arrived.map((c) => [c.text, c.embedding])).toEqual([['Okapis browse at dawn', null]]);
    expect(await server.readStoredText(database)).not.toContain('Okapis');
  });

  it('resumes from its checkpoint: a second pull fetches nothing again', async () => {
    const { a, b } = await connectedPair();
    for (let i = 0; i < 5; i++) await a.stores.settings.set(`note-${i}`, i);
    await syncUntilQuiet([a, b]);
    const before = server.requests.filter((request) => request.path.includes('_bulk_get')).length;
    const changesBefore = server.requests.filter((request) =>
      request.path.includes('/_changes'),
    ).length;
    await b.engine.syncNow();
    const after = server.requests.filter((request) => request.path.includes('_bulk_get')).length;
    expect(after).toBe(before);
    const changes = server.requests
      .filter((request) => request.path.includes('/_changes'))
      .slice(changesBefore);
    expect(changes.length).toBeGreaterThan(0);
    // Every pull starts where the previous one stopped, not at the beginning.
    expect(changes.every((request) => !/[?&]since=0(&|$)/.test(request.path))).toBe(true);
    expect(await b.stores.settings.get('note-4')).toBe(4);
  });

  it('is live again once "Sync now" gets through after the server was gone, without waiting out its retry delay', async () => {
    const database = nextDatabase();
    const delays: number[] = [];
    // Retry delays here never run out by themselves: only being woken ends one.
    const sleep = (ms: number, signal: AbortSignal) => {
      delays.push(ms);
      return new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    };
    const a = await openReplica('a', { sleep });
    const b = await openReplica('b', { start: 1_700_000_000_500 });
    await a.engine.connect(syncSettings(server.url, database), PASSPHRASE);
    await b.engine.connect(syncSettings(server.url, database), PASSPHRASE, { isLive: false });
    await vi.waitFor(() => expect(a.engine.status().state).toBe('idle'));

    await server.goOffline();
    try {
      // The long-poll breaks off: the device says it is offline and waits to retry.
      await vi.waitFor(() => expect(a.engine.status()).toMatchObject({ state: 'offline' }));
      await vi.waitFor(() => expect(delays).toEqual([2_000]));
    } finally {
      await server.goOnline();
    }
    await a.engine.syncNow();

    // A chat started on the other device now arrives by the live feed alone.
    await b.stores.sessions.create(buildSession({ id: asSessionId('sl'), title: 'Live again' }));
    await b.engine.syncNow();
    await vi.waitFor(
      async () =>
        expect((await a.stores.sessions.get(asSessionId('sl')))?.title).toBe('Live again'),
      { timeout: 15_000 },
    );
    await vi.waitFor(() => expect(a.engine.status()).toMatchObject({ state: 'idle', error: null }));
    a.engine.stop();
  });

  it('changes the passphrase by rewriting only the key document; devices already in keep syncing', async () => {
    const { a, b, database } = await connectedPair();
    await a.stores.sessions.create(buildSession({ id: asSessionId('s1'), title: 'Before' }));
    await syncUntilQuiet([a, b]);
    const seqBefore = await server.readUpdateSeq(database);
    const idsBefore = await readDocIds(database);

    await a.engine.changePassphrase(PASSPHRASE, 'a brand new passphrase');

    // One write on the server, to the key document; every record stays as it was.
    expect(await server.readUpdateSeq(database)).toBe(Number(seqBefore) + 1);
    expect(await readDocIds(database)).toEqual(idsBefore);
    // The data key is the same: the device that did not change anything still syncs.
    await b.stores.sessions.update(asSessionId('s1'), { title: 'After' });
    await syncUntilQuiet([a, b]);
    expect((await a.stores.sessions.get(asSessionId('s1')))?.title).toBe('After');
    // A new device needs the new passphrase; the old one no longer opens the database.
    const c = await openReplica('c');
    const refused = await c.engine
      .connect(syncSettings(server.url, database), PASSPHRASE, { isLive: false })
      .catch((error: unknown) => error);
    expect(isSyncError(refused) && refused.code).toBe('wrong_passphrase');
    await c.engine.connect(syncSettings(server.url, database), 'a brand new passphrase', {
      isLive: false,
    });
    await c.engine.syncNow();
    expect((await c.stores.sessions.get(asSessionId('s1')))?.title).toBe('After');
  });

  it('refuses a passphrase change with the wrong current passphrase, changing nothing', async () => {
    const { a, database } = await connectedPair();
    const seqBefore = await server.readUpdateSeq(database);
    const refused = await a.engine
      .changePassphrase('not the passphrase', 'a brand new passphrase')
      .catch((error: unknown) => error);
    expect(isSyncError(refused) && refused.code).toBe('wrong_passphrase');
    expect(await server.readUpdateSeq(database)).toEqual(seqBefore);
  });
});
