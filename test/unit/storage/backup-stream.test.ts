import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { asFileId, asMessageId, asProviderId, asSessionId } from '../../../src/core/model';
import type { BackupProgress } from '../../../src/core/ports';
import { createBackupService } from '../../../src/storage/backup/backup';
import type { CarrelDb } from '../../../src/storage/db';
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
