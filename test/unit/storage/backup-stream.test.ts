import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { asFileId, asMessageId, asProviderId, asSessionId } from '../../../src/core/model';
import type { BackupProgress } from '../../../src/core/ports';
import { createBackupService } from '../../../src/storage/backup/backup';
import type { DBCore, DBCoreTransaction } from 'dexie';
import { BACKUP_FORMAT, BACKUP_VERSION } from '../../../src/storage/backup/backup-format';
import { encodeBase64 } from '../../../src/storage/backup/base64';
import { CarrelDb } from '../../../src/storage/db';
import { createChunkStore } from '../../../src/storage/chunk.store';
import { createFileStore } from '../../../src/storage/file.store';
import { createMessageStore } from '../../../src/storage/message.store';
import { createProviderStore } from '../../../src/storage/provider.store';
import { createSessionStore } from '../../../src/storage/session.store';
import { createSettingsStore } from '../../../src/storage/settings.store';
import { createSummaryStore } from '../../../src/storage/summary.store';
import { dumpDatabase, parseBackupText, wipeDatabase } from './backup-helpers';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  createTestIndexedDb,
  openTestDb,
} from './storage-fixtures';

const legacyText = readFileSync(
  new URL('../../fixtures/db/backup-v1.json', import.meta.url),
  'utf8',
);

/** Sessions with long chains and forks: more rows than one import batch holds. */
async function seedMany(db: CarrelDb, sessionCount: number, chainLength: number): Promise<void> {
  const clock = createFrozenClock();
  const sessions = createSessionStore(db, clock);
  const rows = [];
  for (let s = 0; s < sessionCount; s += 1) {
    const sessionId = asSessionId(`s${s}`);
    await sessions.create(buildSession({ id: sessionId, title: `Chat ${s}` }));
    for (let m = 0; m < chainLength; m += 1) {
      // Every tenth message is a second answer to the same question: a fork.
      const parent = m === 0 ? null : m % 10 === 0 ? `s${s}-m${m - 2}` : `s${s}-m${m - 1}`;
      rows.push(
        m % 2 === 0
          ? buildUserMessage(`s${s}-m${m}`, parent, { sessionId, createdAt: m })
          : buildAssistantMessage(`s${s}-m${m}`, parent, { sessionId, createdAt: m }),
      );
    }
  }
  const messages = createMessageStore(db, clock);
  for (const message of rows) await messages.put(message);
}

/**
 * Counts, per transaction, the characters of file content written: a file's bytes as base64
 * (four characters per three bytes, as the backup holds them) and its extracted text.
 */
function countFileContentPerTransaction(db: CarrelDb): () => number[] {
  const perTransaction = new Map<DBCoreTransaction, number>();
  db.use({
    stack: 'dbcore',
    name: 'file-content-counter',
    create: (down: DBCore): DBCore => ({
      ...down,
      table: (tableName) => {
        const table = down.table(tableName);
        if (tableName !== 'files' && tableName !== 'fileTexts') return table;
        return {
          ...table,
          mutate: (request) => {
            if (request.type === 'put' || request.type === 'add') {
              const chars = request.values.reduce((sum: number, row: unknown) => {
                const { blob, text } = row as { blob?: Blob; text?: string };
                return sum + Math.ceil((blob?.size ?? 0) / 3) * 4 + (text?.length ?? 0);
              }, 0);
              perTransaction.set(request.trans, (perTransaction.get(request.trans) ?? 0) + chars);
            }
            return table.mutate(request);
          },
        };
      },
    }),
  });
  return () => [...perTransaction.values()];
}

describe('streamed backups', () => {
  it('imports a version 1 backup written by earlier Carrels, blobs, vectors and branches included', async () => {
    const db = await openTestDb();
    const report = await createBackupService(db, createFrozenClock()).importBackup(
      new Blob([legacyText]),
    );

    expect(report).toMatchObject({ inserted: 12, replaced: 0, kept: 0 });
    const chain = await createMessageStore(db, createFrozenClock()).loadChain(asMessageId('u2'));
    expect(chain.map((message) => message.id)).toEqual(['u1', 'a1', 'u2']);
    const file = await createFileStore(db).get(asFileId('f1'));
    expect(new Uint8Array(await (file?.blob ?? new Blob()).arrayBuffer())).toEqual(
      new Uint8Array([104, 101, 108, 108, 111]),
    );
    const [chunk] = await createChunkStore(db).listByFile(asFileId('f1'));
    expect(Array.from(chunk?.embedding ?? [])).toEqual([0.5, -1, 2]);
    expect(await createSettingsStore(db, createFrozenClock()).get('systemPrompt')).toBe(
      'Answer in one paragraph.',
    );
    expect(await createProviderStore(db).get(asProviderId('openai'))).toMatchObject({ apiKey: '' });
  });

  it('round-trips a database larger than one batch, each chat placed parents first', async () => {
    const db = await openTestDb();
    await seedMany(db, 3, 250);
    const backup = createBackupService(db, createFrozenClock());
    const before = await dumpDatabase(db);
    const file = await backup.exportBackup({ kind: 'all' });

    const exported = parseBackupText(await file.text());
    const seen = new Set<unknown>();
    for (const message of exported.messages) {
      if (message['parentId'] !== null) expect(seen.has(message['parentId'])).toBe(true);
      seen.add(message['id']);
    }

    await wipeDatabase(db);
    await backup.importBackup(file);
    expect(await dumpDatabase(db)).toEqual(before);
  }, 60_000);

  it('writes large files a few at a time, however many the backup holds', async () => {
    // Thirty files of about 570,000 characters each (bytes as base64, and text): four times
    // what one batch may hold, so they cannot all be written in one transaction.
    const fileBytes = 200_000;
    const fileText = 'word '.repeat(60_000);
    const lines: unknown[] = [
      {
        format: BACKUP_FORMAT,
        version: BACKUP_VERSION,
        exportedAt: 1,
        scope: { kind: 'all' },
        hasApiKeys: false,
      },
    ];
    for (let index = 0; index < 30; index += 1)
      lines.push({
        table: 'files',
        row: {
          id: `big-${index}`,
          projectId: null,
          name: `big-${index}.bin`,
          mimeType: 'application/octet-stream',
          sizeBytes: fileBytes,
          hash: `hash-${index}`,
          status: 'ready',
          text: fileText,
          tokenCount: 1,
          createdAt: index,
          updatedAt: index,
          blobType: 'application/octet-stream',
          blobBase64: encodeBase64(new Uint8Array(fileBytes).fill(index)),
        },
      });
    lines.push({ end: true, rows: 30 });
    const backup = new Blob(lines.map((line) => `${JSON.stringify(line)}\n`));

    const db = new CarrelDb('carrel-test-large-files', createTestIndexedDb());
    const countWritten = countFileContentPerTransaction(db);
    await db.open();
    const report = await createBackupService(db, createFrozenClock()).importBackup(backup);

    expect(report.inserted).toBe(30);
    const oneFile = Math.ceil(fileBytes / 3) * 4 + fileText.length;
    const written = countWritten();
    expect(written.reduce((sum, chars) => sum + chars, 0)).toBe(30 * oneFile);
    // Memory holds one batch several times over (text, bytes, Blobs, IndexedDB's copies): a
    // few MB of file content per transaction, not all the files at once.
    expect(written.length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...written)).toBeLessThanOrEqual(5_000_000);
    const last = await createFileStore(db).get(asFileId('big-29'));
    expect(last?.text).toBe(fileText);
    expect(new Uint8Array(await (last?.blob ?? new Blob()).arrayBuffer())).toEqual(
      new Uint8Array(fileBytes).fill(29),
    );
  }, 60_000);

  it('refuses a file cut short between two lines, and writes nothing', async () => {
    const source = await openTestDb();
    await seedMany(source, 1, 20);
    const lines = (
      await (
        await createBackupService(source, createFrozenClock()).exportBackup({ kind: 'all' })
      ).text()
    ).split('\n');
    const cut = `${lines.slice(0, 12).join('\n')}\n`;
    const target = await openTestDb();

    await expect(
      createBackupService(target, createFrozenClock()).importBackup(new Blob([cut])),
    ).rejects.toMatchObject({
      code: 'invalid_data',
      message: expect.stringMatching(/cut short/) as unknown,
    });
    expect(await target.messages.count()).toBe(0);
    expect(await target.sessions.count()).toBe(0);
  });

  it('reports progress that only grows and ends at the total, on export and on import', async () => {
    const db = await openTestDb();
    await seedMany(db, 2, 150);
    const backup = createBackupService(db, createFrozenClock());
    const exportSteps: BackupProgress[] = [];
    const file = await backup.exportBackup(
      { kind: 'all' },
      { onProgress: (step) => exportSteps.push(step) },
    );
    const importSteps: BackupProgress[] = [];
    await backup.importBackup(file, { onProgress: (step) => importSteps.push(step) });

    for (const steps of [exportSteps, importSteps]) {
      expect(steps.length).toBeGreaterThan(10);
      const done = steps.map((step) => step.done);
      expect(done).toEqual([...done].sort((a, b) => a - b));
      expect(steps.at(-1)?.done).toBe(steps.at(-1)?.total);
    }
    expect(exportSteps.at(-1)?.total).toBe(2 + 300);
    expect(importSteps.at(-1)?.total).toBe(file.size);
  });

  it('stops an import when cancelled half-way and leaves the data as it was', async () => {
    const source = await openTestDb();
    await seedMany(source, 3, 250);
    const file = await createBackupService(source, createFrozenClock()).exportBackup({
      kind: 'all',
    });
    const target = await openTestDb();
    await seedMany(target, 1, 3);
    const before = await dumpDatabase(target);
    const controller = new AbortController();
    const reason = new DOMException('The person cancelled.', 'AbortError');

    await expect(
      createBackupService(target, createFrozenClock()).importBackup(file, {
        signal: controller.signal,
        onProgress: ({ done, total }) => {
          if (done > total / 2) controller.abort(reason);
        },
      }),
    ).rejects.toBe(reason);
    expect(await dumpDatabase(target)).toEqual(before);
  }, 60_000);

  it('drops the file of an export cancelled as its last rows were written', async () => {
    const db = await openTestDb();
    await seedMany(db, 1, 20);
    // A chat summary is the last row an export writes.
    await createSummaryStore(db).add({
      id: 'sum-1',
      sessionId: asSessionId('s0'),
      lastMessageId: asMessageId('s0-m1'),
      coveredIds: [asMessageId('s0-m0'), asMessageId('s0-m1')],
      previousSummaryId: null,
      text: 'They said hello.',
      tokenCount: 4,
      model: { providerId: asProviderId('p'), modelId: 'small' },
      createdAt: 5,
    });
    const controller = new AbortController();
    const reason = new DOMException('The person cancelled.', 'AbortError');
    await expect(
      createBackupService(db, createFrozenClock()).exportBackup(
        { kind: 'all' },
        {
          signal: controller.signal,
          onProgress: ({ done, total }) => {
            if (done === total && total > 0) controller.abort(reason);
          },
        },
      ),
    ).rejects.toBe(reason);
  });

  it('stops an export when cancelled', async () => {
    const db = await openTestDb();
    await seedMany(db, 2, 150);
    const controller = new AbortController();
    const reason = new DOMException('The person cancelled.', 'AbortError');
    await expect(
      createBackupService(db, createFrozenClock()).exportBackup(
        { kind: 'all' },
        {
          signal: controller.signal,
          onProgress: ({ done }) => {
            if (done > 50) controller.abort(reason);
          },
        },
      ),
    ).rejects.toBe(reason);
  });
});
