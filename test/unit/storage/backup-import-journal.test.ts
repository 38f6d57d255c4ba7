/**
 * An import writes in many transactions and stays all or nothing: whatever batch a failure, a
 * full disk, a cancel or a closed tab stops it at, the database ends exactly as it was.
 */
import { Dexie, type DBCore, type DBCoreTransaction } from 'dexie';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  asFileId,
  asMessageId,
  asProviderId,
  asSessionId,
  type ChatMessageSimple,
  type FileId,
} from '../../../src/core/model';
import { buildFileSearchBlock } from '../../../src/core/rag';
import { createBackupService } from '../../../src/storage/backup/backup';
import {
  IMPORT_LOCK_NAME,
  JOURNALED_TABLES,
  recoverInterruptedImports,
} from '../../../src/storage/backup/import-journal';
import { recoverUnfinishedImportsOnStart } from '../../../src/storage/backup/import-status';
import { createChunkStore } from '../../../src/storage/chunk.store';
import { CarrelDb, CURRENT_SCHEMA_VERSION, SCHEMA_V5 } from '../../../src/storage/db';
import { createFileStore } from '../../../src/storage/file.store';
import { createMessageStore } from '../../../src/storage/message.store';
import { createProviderStore } from '../../../src/storage/provider.store';
import { createSearchBlockStore } from '../../../src/storage/search-block.store';
import { createSessionStore } from '../../../src/storage/session.store';
import { createSettingsStore } from '../../../src/storage/settings.store';
import { createSummaryStore } from '../../../src/storage/summary.store';
import { BACKUP_TABLES } from '../../../src/storage/backup/backup-format';
import { dumpDatabase } from './backup-helpers';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  createTestIndexedDb,
  openTestDb,
} from './storage-fixtures';

const BACKED_UP_TABLES = new Set<string>(BACKUP_TABLES);

function chatMessages(sessionIndex: number, count: number, updatedAt: number): ChatMessageSimple[] {
  const sessionId = asSessionId(`s${sessionIndex}`);
  return Array.from({ length: count }, (_, m) => {
    const id = `s${sessionIndex}-m${m}`;
    // Every tenth message is a second answer to the same question: a fork.
    const parent =
      m === 0 ? null : m % 10 === 0 ? `s${sessionIndex}-m${m - 2}` : `s${sessionIndex}-m${m - 1}`;
    const fields = { sessionId, createdAt: m, updatedAt };
    return m % 2 === 0
      ? buildUserMessage(id, parent, fields)
      : buildAssistantMessage(id, parent, fields);
  });
}

async function putFile(db: CarrelDb, id: string, updatedAt: number, chunkCount: number) {
  const fileId = asFileId(id);
  await createFileStore(db).put({
    id: fileId,
    projectId: null,
    name: `${id}.txt`,
    mimeType: 'text/plain',
    sizeBytes: 3,
    hash: `${id}-${updatedAt}`,
    text: `${id} text at ${updatedAt}`,
    blob: new Blob([`${id} at ${updatedAt}`], { type: 'text/plain' }),
    status: 'ready',
    tokenCount: 1,
    createdAt: 1,
    updatedAt,
  });
  await createChunkStore(db).replaceForFile(
    fileId,
    Array.from({ length: chunkCount }, (_, ordinal) => ({
      id: `${id}-c${ordinal}-${updatedAt}`,
      fileId,
      projectId: null,
      ordinal,
      text: `chunk ${ordinal} of ${id} at ${updatedAt}`,
      tokenCount: 1,
      embedding: new Float32Array([ordinal, updatedAt]),
      embeddingModel: 'model',
    })),
  );
}

/** Builds and stores the file's search block from its chunks, as the embedding worker does. */
async function storeSearchBlock(db: CarrelDb, fileId: FileId): Promise<void> {
  const blocks = createSearchBlockStore(db);
  const file = await createFileStore(db).get(fileId);
  if (file === undefined) throw new Error(`expected the file ${fileId}`);
  const { revision, chunks } = await blocks.readChunks(fileId);
  if (!(await blocks.put(buildFileSearchBlock(file, chunks), revision)))
    throw new Error('the search block was not stored');
}

/** The backup: three long chats (newer than the target's copy of the first), files, a summary. */
async function buildSourceFile(): Promise<Blob> {
  const db = await openTestDb();
  const clock = createFrozenClock();
  const sessions = createSessionStore(db, clock);
  const messages = createMessageStore(db, clock);
  for (let s = 0; s < 3; s += 1) {
    await sessions.create(
      buildSession({ id: asSessionId(`s${s}`), title: `Chat ${s}`, updatedAt: 50 }),
    );
    for (const message of chatMessages(s, 240, 50)) await messages.put(message);
  }
  await putFile(db, 'f0', 50, 3);
  await putFile(db, 'f1', 50, 2);
  await createSummaryStore(db).add({
    id: 'sum-1',
    sessionId: asSessionId('s1'),
    lastMessageId: asMessageId('s1-m1'),
    coveredIds: [asMessageId('s1-m0'), asMessageId('s1-m1')],
    previousSummaryId: null,
    text: 'They said hello.',
    tokenCount: 4,
    model: { providerId: asProviderId('p'), modelId: 'small' },
    createdAt: 5,
  });
  await createSettingsStore(db, clock).set('theme', 'dark');
  const file = await createBackupService(db, clock).exportBackup({ kind: 'all' });
  db.close();
  return file;
}

/** What this device has: older copies of some backed-up rows (replaced), and rows of its own. */
async function seedTarget(db: CarrelDb): Promise<void> {
  const clock = createFrozenClock();
  const sessions = createSessionStore(db, clock);
  const messages = createMessageStore(db, clock);
  await sessions.create(buildSession({ id: asSessionId('s0'), title: 'Older copy', updatedAt: 5 }));
  for (const message of chatMessages(0, 3, 5)) await messages.put(message);
  await sessions.create(buildSession({ id: asSessionId('local'), title: 'Only here' }));
  await messages.put(buildUserMessage('local-m0', null, { sessionId: asSessionId('local') }));
  // An older f0: the import replaces it, its text and its chunks, and drops its search block.
  await putFile(db, 'f0', 5, 2);
  await storeSearchBlock(db, asFileId('f0'));
  await createProviderStore(db).put({
    id: asProviderId('openai'),
    name: 'OpenAI',
    kind: 'openai',
    preset: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    apiKey: 'sk-local',
    keyOrigin: 'https://api.openai.com',
    headers: {},
    models: [],
    contextWindowOverrides: {},
    createdAt: 1,
    updatedAt: 1,
  });
  await createSettingsStore(db, clock).set('theme', 'light');
}

type Fault = 'error' | 'quota' | 'cancel' | 'closed-tab';

/**
 * A database whose writes can be made to fail: `arm(n, fault)` acts when the n-th transaction
 * (counted from 1) writes to a backed-up table. `error` and `quota` fail that write; `cancel`
 * aborts the import's signal (the batch commits, the next check stops the import); `closed-tab`
 * fails that write and every later one, as a tab that is gone writes nothing more.
 */
function openFaultyDb(name: string, indexedDb: ReturnType<typeof createTestIndexedDb>) {
  const db = new CarrelDb(name, indexedDb);
  let armed: { at: number; fault: Fault; controller: AbortController } | undefined;
  let isGone = false;
  const seen = new WeakMap<DBCoreTransaction, number>();
  let transactions = 0;
  /** Rows each transaction wrote to backed-up tables. */
  const rowsByTransaction: number[] = [];
  db.use({
    stack: 'dbcore',
    name: 'faults',
    create: (down: DBCore): DBCore => ({
      ...down,
      table: (tableName) => {
        const table = down.table(tableName);
        return {
          ...table,
          mutate: (request) => {
            if (isGone) return Promise.reject(new DOMException('The tab is closed.', 'AbortError'));
            if (!BACKED_UP_TABLES.has(tableName) || armed === undefined)
              return table.mutate(request);
            let index = seen.get(request.trans);
            if (index === undefined) {
              transactions += 1;
              index = transactions;
              seen.set(request.trans, index);
              rowsByTransaction[index] = 0;
            }
            rowsByTransaction[index]! +=
              request.type === 'add' || request.type === 'put'
                ? request.values.length
                : request.type === 'delete'
                  ? request.keys.length
                  : 0;
            if (index !== armed.at) return table.mutate(request);
            const { fault, controller } = armed;
            if (fault === 'cancel') {
              controller.abort(new DOMException('The person cancelled.', 'AbortError'));
              return table.mutate(request);
            }
            armed = { ...armed, at: -1 };
            if (fault === 'closed-tab') isGone = true;
            return Promise.reject(
              fault === 'error'
                ? new Error('The disk could not be read.')
                : new Dexie.AbortError('aborted', new DOMException('full', 'QuotaExceededError')),
            );
          },
        };
      },
    }),
  });
  return {
    db,
    arm(at: number, fault: Fault, controller: AbortController) {
      armed = { at, fault, controller };
      transactions = 0;
      rowsByTransaction.length = 0;
    },
    transactionCount: () => transactions,
    rowsByTransaction: () => rowsByTransaction.slice(1),
  };
}

let databases = 0;

// A tab that is gone cannot undo its import: it says so on the console, and the next start does.
beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function openSeededTarget({ isSeeded = true }: { isSeeded?: boolean } = {}) {
  databases += 1;
  const name = `journal-${databases}`;
  const indexedDb = createTestIndexedDb();
  const faulty = openFaultyDb(name, indexedDb);
  await faulty.db.open();
  if (isSeeded) await seedTarget(faulty.db);
  return { ...faulty, name, indexedDb };
}

/** Every table an import writes, search blocks included: what must be left exactly as it was. */
const dumpAll = (db: CarrelDb) => dumpDatabase(db, { withSearchBlocks: true });

/** A fake of the browser's Web Locks, enough for `ifAvailable` requests. */
function createLocks(): LockManager {
  const held = new Set<string>();
  type Callback = (lock: Lock | null) => Promise<unknown>;
  const request = async (name: string, second: LockOptions | Callback, third?: Callback) => {
    const [options, callback] = typeof second === 'function' ? [{}, second] : [second, third!];
    if (held.has(name)) {
      if (options.ifAvailable === true) return callback(null);
      throw new Error('This fake only grants locks that are free.');
    }
    held.add(name);
    try {
      return await callback({ name, mode: 'exclusive' });
    } finally {
      held.delete(name);
    }
  };
  return {
    request,
    query: () => Promise.resolve({ held: [], pending: [] }),
  };
}

/** How many batches importing the file into a seeded database writes. */
async function countBatches(file: Blob): Promise<number> {
  const probe = await openSeededTarget();
  probe.arm(0, 'error', new AbortController());
  await createBackupService(probe.db, createFrozenClock()).importBackup(file);
  const batches = probe.transactionCount();
  probe.db.close();
  return batches;
}

describe('a backup import stopped at any batch', () => {
  it('writes in batches, no transaction holding more than one batch of rows', async () => {
    const file = await buildSourceFile();
    const target = await openSeededTarget();
    target.arm(0, 'error', new AbortController());
    const report = await createBackupService(target.db, createFrozenClock()).importBackup(file);

    expect(report.inserted).toBeGreaterThan(700);
    const rows = target.rowsByTransaction();
    expect(rows.length).toBeGreaterThan(1);
    // A batch is at most 500 rows; what it replaced is journaled beside it.
    expect(Math.max(...rows)).toBeLessThanOrEqual(1_000);
    expect(await target.db.imports.count()).toBe(0);
    expect(await target.db.importUndo.count()).toBe(0);
  });

  it("replaces a file's text and drops its stale search block, which an undo must restore", async () => {
    const file = await buildSourceFile();
    const target = await openSeededTarget();
    expect((await target.db.searchBlocks.get('f0'))?.block).not.toBeNull();
    expect((await target.db.fileTexts.get('f0'))?.text).toBe('f0 text at 5');
    target.arm(0, 'error', new AbortController());
    await createBackupService(target.db, createFrozenClock()).importBackup(file);

    expect((await target.db.searchBlocks.get('f0'))?.block).toBeNull();
    expect((await target.db.fileTexts.get('f0'))?.text).toBe('f0 text at 50');
  });

  it("drops every project's search snapshot when it undoes written chunks, so none joined mid-import survives", async () => {
    const file = await buildSourceFile();
    const batches = await countBatches(file);
    const target = await openSeededTarget();
    // A snapshot a search stored while the import was under way, and a project with files but
    // none yet: both generations move on, so neither can be stored from what was read before.
    await target.db.searchSnapshots.put({ projectId: 'joined-mid-import', generation: 4, snapshot: { stale: true } as never });
    await putFile(target.db, 'p-file', 5, 1);
    await target.db.files.update('p-file', { projectId: 'with-files' });
    // The last batch fails: every earlier one, chunks included, is undone.
    target.arm(batches, 'error', new AbortController());
    await expect(createBackupService(target.db, createFrozenClock()).importBackup(file)).rejects.toBeDefined();

    expect(await target.db.importUndo.count()).toBe(0);
    expect(await target.db.searchSnapshots.get('joined-mid-import')).toEqual({ projectId: 'joined-mid-import', generation: 5, snapshot: null });
    expect(await target.db.searchSnapshots.get('with-files')).toEqual({ projectId: 'with-files', generation: 1, snapshot: null });
  });

  it('leaves the database exactly as it was, whatever the batch and the fault', async () => {
    const file = await buildSourceFile();
    const batches = await countBatches(file);

    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: batches }),
        fc.constantFrom<Fault>('error', 'quota', 'cancel', 'closed-tab'),
        async (at, fault) => {
          const target = await openSeededTarget();
          const before = await dumpAll(target.db);
          const controller = new AbortController();
          target.arm(at, fault, controller);
          const importing = createBackupService(target.db, createFrozenClock()).importBackup(file, {
            signal: controller.signal,
          });
          await expect(importing).rejects.toBeDefined();
          target.db.close();

          const reopened = new CarrelDb(target.name, target.indexedDb);
          await reopened.open();
          if (fault === 'closed-tab') {
            // Cut short before it could undo anything: the next start undoes it.
            expect(await reopened.imports.count()).toBe(1);
            expect(await recoverInterruptedImports(reopened, undefined)).toBe(true);
          }
          expect(await dumpAll(reopened)).toEqual(before);
          reopened.close();
        },
      ),
      { numRuns: 24 },
    );
  }, 180_000);

  it('refuses the whole file before writing anything when a late row is bad', async () => {
    const file = await buildSourceFile();
    const lines = (await file.text()).split('\n');
    const summaryLine = lines.findIndex((line) => line.includes('"table":"summaries"'));
    lines[summaryLine] = lines[summaryLine]!.replace('"They said hello."', '""');
    const target = await openSeededTarget();
    const before = await dumpAll(target.db);
    target.arm(0, 'error', new AbortController());

    await expect(
      createBackupService(target.db, createFrozenClock()).importBackup(
        new Blob([lines.join('\n')]),
      ),
    ).rejects.toMatchObject({
      code: 'invalid_data',
      message: expect.stringMatching(/summaries\.0\.text/) as unknown,
    });
    expect(target.transactionCount()).toBe(0);
    expect(await dumpAll(target.db)).toEqual(before);
  });
});

/**
 * Imports into a seeded database whose tab closes at the given batch, then opens the database
 * again as the next start would: the seeded state, and the reopened database.
 */
async function importUntilTabCloses(file: Blob, batch: number, options?: { isSeeded?: boolean }) {
  const target = await openSeededTarget(options);
  const before = await dumpAll(target.db);
  target.arm(batch, 'closed-tab', new AbortController());
  await expect(
    createBackupService(target.db, createFrozenClock()).importBackup(file),
  ).rejects.toBeDefined();
  target.db.close();
  const reopened = new CarrelDb(target.name, target.indexedDb);
  await reopened.open();
  return { reopened, before };
}

describe('imports across tabs', () => {
  it('leaves an import another tab is running alone at start, and undoes it once that tab is gone', async () => {
    const file = await buildSourceFile();
    const { reopened, before } = await importUntilTabCloses(file, 3);
    const locks = createLocks();

    // The importing tab still holds the lock: its journal is not touched.
    await locks.request(IMPORT_LOCK_NAME, async () => {
      expect(await recoverInterruptedImports(reopened, locks)).toBe(false);
      await expect(
        createBackupService(reopened, createFrozenClock(), locks).importBackup(file),
      ).rejects.toMatchObject({
        code: 'blocked',
        message: expect.stringMatching(/Another Carrel tab is importing/) as unknown,
      });
    });
    expect(await reopened.imports.count()).toBe(1);

    expect(await recoverInterruptedImports(reopened, locks)).toBe(true);
    expect(await dumpAll(reopened)).toEqual(before);
    reopened.close();
  });

  it('journals the rows a batch creates in one record per table, and an undo still removes every one', async () => {
    const file = await buildSourceFile();
    const probe = await openSeededTarget({ isSeeded: false });
    probe.arm(0, 'error', new AbortController());
    const report = await createBackupService(probe.db, createFrozenClock()).importBackup(file);
    const batches = probe.transactionCount();
    probe.db.close();

    // Cut short at its last batch: everything before it is written, with its journal.
    const { reopened, before } = await importUntilTabCloses(file, batches, { isSeeded: false });
    const written = (await dumpAll(reopened)) as Record<string, unknown[]>;
    const rowsWritten = Object.values(written).reduce((sum, rows) => sum + rows.length, 0);
    expect(rowsWritten).toBeGreaterThan(report.inserted / 2);
    expect(await reopened.importUndo.count()).toBeLessThanOrEqual(
      batches * JOURNALED_TABLES.length,
    );
    // The app's start-up path: it finds the journal and loads the code that undoes it.
    expect(await recoverUnfinishedImportsOnStart(reopened)).toBe(true);
    expect(await dumpAll(reopened)).toEqual(before);
    expect(await reopened.importUndo.count()).toBe(0);
    // With no journal left, a start finds nothing to undo and changes nothing.
    expect(await recoverUnfinishedImportsOnStart(reopened)).toBe(true);
    expect(await dumpAll(reopened)).toEqual(before);
    reopened.close();
  });

  it('undoes an unfinished import before the next one writes', async () => {
    const file = await buildSourceFile();
    const { reopened } = await importUntilTabCloses(file, 2);

    await createBackupService(reopened, createFrozenClock()).importBackup(file);
    expect(await reopened.imports.count()).toBe(0);
    expect(await reopened.importUndo.count()).toBe(0);
    expect(await reopened.messages.where('sessionId').equals('s0').count()).toBe(240);
    expect(await reopened.messages.where('sessionId').equals('s1').count()).toBe(240);
    reopened.close();
  });

  it('upgrades a version 5 database to 6 with an empty journal and its rows untouched', async () => {
    const indexedDb = createTestIndexedDb();
    const old = new Dexie('upgrade-v6', indexedDb);
    old.version(5).stores(SCHEMA_V5);
    await old.open();
    await old.table('sessions').add(buildSession({ id: asSessionId('kept') }));
    old.close();
    const db = new CarrelDb('upgrade-v6', indexedDb);
    await db.open();
    expect(db.verno).toBe(CURRENT_SCHEMA_VERSION);
    expect(await db.imports.count()).toBe(0);
    expect(await db.importUndo.count()).toBe(0);
    expect((await db.sessions.get('kept'))?.title).toBe('A chat');
    db.close();
  });
});
