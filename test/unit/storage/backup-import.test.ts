import { Dexie, type DBCore } from 'dexie';
import { describe, expect, it } from 'vitest';
import {
  asFileId,
  asMessageId,
  asProjectId,
  asProviderId,
  asSessionId,
  type ProviderConfig,
} from '../../../src/core/model';
import { createBackupService } from '../../../src/storage/backup/backup';
import { exportBackup } from '../../../src/storage/backup/export-backup';
import { renderSessionMarkdown } from '../../../src/storage/backup/export-markdown';
import { MAX_BACKUP_STRING_CHARS } from '../../../src/storage/backup/import-backup';
import { CarrelDb } from '../../../src/storage/db';
import { createFileStore } from '../../../src/storage/file.store';
import { createMessageStore } from '../../../src/storage/message.store';
import { createProjectStore } from '../../../src/storage/project.store';
import { createProviderStore } from '../../../src/storage/provider.store';
import { createSessionStore } from '../../../src/storage/session.store';
import {
  dumpDatabase,
  parseBackupText,
  writeBackupText,
  type BackupContents,
} from './backup-helpers';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  createTestIndexedDb,
  openTestDb,
} from './storage-fixtures';

const provider: ProviderConfig = {
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
};

async function seed(db: CarrelDb) {
  const clock = createFrozenClock(100);
  await createSessionStore(db, clock).create(buildSession({ title: 'Local title', updatedAt: 5 }));
  const messages = createMessageStore(db, clock);
  await messages.put(buildUserMessage('u1', null));
  await messages.put(
    buildAssistantMessage('a1', 'u1', {
      citations: [{ number: 1, title: 'Doc', url: 'https://doc.test' }],
    }),
  );
  await createProviderStore(db).put(provider);
}

async function exportAll(db: CarrelDb): Promise<string> {
  return (await exportBackup(db, { kind: 'all' }, createFrozenClock())).text();
}

const importText = (db: CarrelDb, text: string) =>
  createBackupService(db, createFrozenClock()).importBackup(new Blob([text]));

describe('backup import of malformed files', () => {
  const cases: { name: string; text: (valid: string) => string; message: RegExp }[] = [
    {
      name: 'truncated JSON',
      text: (valid) => valid.slice(0, valid.length / 2),
      message: /not complete JSON/,
    },
    {
      name: 'another format',
      text: () => JSON.stringify({ format: 'zip', version: 1 }),
      message: /"format"/,
    },
    {
      name: 'a newer version',
      text: (valid) => valid.replace('"version":2', '"version":3'),
      message: /version 3 is not supported/,
    },
    {
      name: 'a wrong type deep inside',
      text: (valid) => valid.replace('"title":"Remote title"', '"title":42'),
      message: /"sessions\.0\.title"/,
    },
    {
      name: 'a negative token count in a message',
      text: (valid) => valid.replace('"textTokenCount":3', '"textTokenCount":-3'),
      message: /"messages\.\d\.textTokenCount"/,
    },
    {
      name: 'a huge string',
      text: (valid) =>
        valid.replace(
          '"title":"Remote title"',
          `"title":"${'x'.repeat(MAX_BACKUP_STRING_CHARS + 1)}"`,
        ),
      message: /"sessions\.0\.title" is too long/,
    },
    {
      name: 'a __proto__ key',
      text: (valid) => valid.replace('"headers":{}', '"headers":{"__proto__":{"isAdmin":true}}'),
      message: /"__proto__" at "providers\.0\.headers\.__proto__" is not allowed/,
    },
    {
      name: 'a constructor key',
      text: (valid) => valid.replace('"headers":{}', '"headers":{"constructor":"x"}'),
      message: /"constructor"/,
    },
    {
      name: 'bad base64',
      text: (valid) => valid.replace(/"blobBase64":"[^"]*"/, '"blobBase64":"***"'),
      message: /"files\.0\.blobBase64"/,
    },
  ];

  for (const { name, text, message } of cases) {
    it(`rejects ${name} with a clear error and leaves existing data untouched`, async () => {
      const source = await openTestDb();
      await seed(source);
      await createSessionStore(source, createFrozenClock()).update(asSessionId('s1'), {
        title: 'Remote title',
      });
      await createFileStore(source).put({
        id: asFileId('f1'),
        projectId: null,
        name: 'a.bin',
        mimeType: 'application/octet-stream',
        sizeBytes: 3,
        hash: 'h',
        blob: new Blob([new Uint8Array([1, 2, 3])]),
        status: 'ready',
        tokenCount: 0,
        createdAt: 1,
        updatedAt: 1,
      });
      const valid = await exportAll(source);
      const target = await openTestDb();
      await seed(target);
      const before = await dumpDatabase(target);

      await expect(importText(target, text(valid))).rejects.toMatchObject({
        code: 'invalid_data',
        message: expect.stringMatching(message) as unknown,
      });
      expect(await dumpDatabase(target)).toEqual(before);
    });
  }

  it('writes nothing when the database fails half-way through the import', async () => {
    const source = await openTestDb();
    await seed(source);
    const text = await exportAll(source);
    const target = new CarrelDb('import-fails', createTestIndexedDb());
    target.use({
      stack: 'dbcore',
      name: 'fail-provider-writes',
      create: (down: DBCore): DBCore => ({
        ...down,
        table: (name) => {
          const table = down.table(name);
          return name === 'providers'
            ? {
                ...table,
                mutate: () =>
                  Promise.reject(
                    new Dexie.AbortError('aborted', new DOMException('full', 'QuotaExceededError')),
                  ),
              }
            : table;
        },
      }),
    });
    await target.open();

    await expect(importText(target, text)).rejects.toMatchObject({ code: 'quota_exceeded' });
    expect(await target.sessions.count()).toBe(0);
    expect(await target.messages.count()).toBe(0);
  });
});

describe("backup import checks what it would write with the app's own schemas", () => {
  async function exportWith(edit: (backup: BackupContents) => void): Promise<string> {
    const source = await openTestDb();
    await seed(source);
    const backup = parseBackupText(await exportAll(source));
    edit(backup);
    return writeBackupText(backup);
  }

  async function expectRefused(text: string, message: RegExp): Promise<void> {
    const target = await openTestDb();
    await seed(target);
    const before = await dumpDatabase(target);
    await expect(importText(target, text)).rejects.toMatchObject({
      code: 'invalid_data',
      message: expect.stringMatching(message) as unknown,
    });
    expect(await dumpDatabase(target)).toEqual(before);
  }

  it('refuses a setting whose value the settings form could never have saved', async () => {
    const text = await exportWith((backup) => {
      backup.settings = [{ key: 'systemPrompt', value: 42, updatedAt: 1 }];
    });
    await expectRefused(text, /"settings\.0\.value" \(key systemPrompt\) .*setting "systemPrompt"/);
  });

  it('names the first few problems, each with its record, when several records are wrong', async () => {
    const text = await exportWith((backup) => {
      backup.settings = [
        { key: 'theme', value: 'purple', updatedAt: 1 },
        { key: 'defaultModel', value: { providerId: 'p' }, updatedAt: 1 },
      ];
      backup.sessions[0]!['title'] = 7;
    });
    await expectRefused(
      text,
      /"sessions\.0\.title" \(id s1\).*; "settings\.0\.value" \(key theme\).*; "settings\.1\.value\.modelId" \(key defaultModel\)/,
    );
  });

  it('refuses messages whose parent links form a cycle', async () => {
    const text = await exportWith((backup) => {
      const messages = backup.messages;
      // u1 → a1 → u1: each is the other's parent.
      for (const message of messages) message['parentId'] = message['id'] === 'u1' ? 'a1' : 'u1';
    });
    await expectRefused(text, /messages "(u1|a1)" → "(u1|a1)" form a cycle/);
  });

  it('refuses a cycle that closes through a message this device already has', async () => {
    const target = await openTestDb();
    await seed(target);
    // The backup makes u1 (already here, the parent of a1) a child of a new message whose
    // parent is a1: a1 → x → u1 → a1.
    const text = await exportWith((backup) => {
      const messages = backup.messages;
      const u1 = messages.find((message) => message['id'] === 'u1')!;
      backup.messages = [
        { ...u1, parentId: 'x', updatedAt: 999 },
        { ...u1, id: 'x', parentId: 'a1' },
      ];
      backup.sessions = [];
    });
    const before = await dumpDatabase(target);
    await expect(importText(target, text)).rejects.toMatchObject({
      code: 'invalid_data',
      message: expect.stringMatching(/form a cycle/) as unknown,
    });
    expect(await dumpDatabase(target)).toEqual(before);
  });

  it('imports a summary whose chat and messages come with it, and leaves out, saying why, one whose do not', async () => {
    const summary = (id: string, sessionId: string, coveredIds: string[]) => ({
      id,
      sessionId,
      lastMessageId: coveredIds[coveredIds.length - 1],
      coveredIds,
      previousSummaryId: null,
      text: `Summary ${id}`,
      tokenCount: 2,
      model: { providerId: 'openai', modelId: 'small' },
      createdAt: 1,
    });
    const text = await exportWith((backup) => {
      backup.summaries = [
        summary('kept', 's1', ['u1', 'a1']),
        summary('no-chat', 'elsewhere', ['u1']),
        summary('no-message', 's1', ['u1', 'deleted-answer']),
      ];
    });
    const target = await openTestDb();

    const report = await importText(target, text);

    expect((await target.summaries.toArray()).map((row) => row.id)).toEqual(['kept']);
    expect(report.summariesLeftOut).toEqual([
      'summary "no-chat": its chat "elsewhere" is not in the backup.',
      'summary "no-message": message "deleted-answer" it stands for is not in the backup\'s chat.',
    ]);
  });

  it('refuses a summary the summary store could never have saved', async () => {
    const text = await exportWith((backup) => {
      backup.summaries = [
        {
          id: 'empty',
          sessionId: 's1',
          lastMessageId: 'a1',
          coveredIds: [],
          previousSummaryId: null,
          text: 'x',
          tokenCount: 1,
          model: { providerId: 'openai', modelId: 'small' },
          createdAt: 1,
        },
      ];
    });
    await expectRefused(text, /"summaries\.0\.coveredIds" \(id empty\)/);
  });

  it('imports registered settings and leaves out keys this version does not know', async () => {
    const text = await exportWith((backup) => {
      backup.settings = [
        { key: 'systemPrompt', value: 'Be brief.', updatedAt: 1 },
        { key: 'someFutureSetting', value: 42, updatedAt: 1 },
      ];
    });
    const target = await openTestDb();
    await importText(target, text);
    expect(await target.settings.toArray()).toEqual([
      { key: 'systemPrompt', value: 'Be brief.', updatedAt: 1 },
    ]);
  });
});

describe('backup import into a database that has data', () => {
  it('merges without duplicating, the newer updatedAt winning, and keeps local API keys', async () => {
    const remote = await openTestDb();
    await seed(remote);
    await createSessionStore(remote, createFrozenClock(900)).update(asSessionId('s1'), {
      title: 'Remote title',
    });
    await createMessageStore(remote, createFrozenClock()).put(
      buildUserMessage('u2', 'a1', { createdAt: 30 }),
    );
    await createProviderStore(remote).put({
      ...provider,
      name: 'Renamed remotely',
      apiKey: 'sk-remote',
      updatedAt: 50,
    });
    const text = await exportAll(remote);

    const local = await openTestDb();
    await seed(local);
    await createProjectStore(local, createFrozenClock()).put({
      id: asProjectId('local-only'),
      name: 'Mine',
      instructions: '',
      defaultModel: null,
      defaultAgentId: null,
      createdAt: 1,
      updatedAt: 1,
    });
    const localSession = await createSessionStore(local, createFrozenClock()).get(
      asSessionId('s1'),
    );
    await importText(local, text);
    const second = await importText(local, text);

    expect(await local.sessions.count()).toBe(1);
    expect(await local.messages.count()).toBe(3);
    const merged = await createSessionStore(local, createFrozenClock()).get(asSessionId('s1'));
    expect(merged?.title).toBe('Remote title');
    expect(merged?.version).toBeGreaterThan(localSession?.version ?? 0);
    expect(await createProviderStore(local).get(provider.id)).toMatchObject({
      name: 'Renamed remotely',
      apiKey: 'sk-local',
    });
    expect(
      await createProjectStore(local, createFrozenClock()).get(asProjectId('local-only')),
    ).toBeDefined();
    expect(second).toMatchObject({ inserted: 0, replaced: 0 });
  });

  it("keeps a local row that is newer than the backup's", async () => {
    const remote = await openTestDb();
    await seed(remote);
    const text = await exportAll(remote);
    const local = await openTestDb();
    await seed(local);
    await createSessionStore(local, createFrozenClock(5000)).update(asSessionId('s1'), {
      title: 'Edited here later',
    });

    const report = await importText(local, text);

    expect(
      (await createSessionStore(local, createFrozenClock()).get(asSessionId('s1')))?.title,
    ).toBe('Edited here later');
    expect(report.inserted).toBe(0);
  });
});

describe('backup scopes and Markdown', () => {
  it('exports one project with its chats and files, and one session with its attachment files', async () => {
    const db = await openTestDb();
    const clock = createFrozenClock();
    await createProjectStore(db, clock).put({
      id: asProjectId('p1'),
      name: 'P',
      instructions: '',
      defaultModel: null,
      defaultAgentId: null,
      createdAt: 1,
      updatedAt: 1,
    });
    const sessions = createSessionStore(db, clock);
    await sessions.create(
      buildSession({ id: asSessionId('in-project'), projectId: asProjectId('p1') }),
    );
    await sessions.create(buildSession({ id: asSessionId('loose') }));
    const messages = createMessageStore(db, clock);
    await messages.put(buildUserMessage('m1', null, { sessionId: asSessionId('in-project') }));
    await messages.put(
      buildUserMessage('m2', null, {
        sessionId: asSessionId('loose'),
        attachments: [
          {
            fileId: asFileId('att'),
            name: 'a.txt',
            mimeType: 'text/plain',
            kind: 'text',
            sizeBytes: 1,
            tokenCount: 1,
            status: 'ready',
          },
        ],
      }),
    );
    const files = createFileStore(db);
    const file = {
      mimeType: 'text/plain',
      sizeBytes: 1,
      hash: 'h',
      blob: new Blob(['a']),
      status: 'ready' as const,
      tokenCount: 1,
      createdAt: 1,
      updatedAt: 1,
    };
    await files.put({
      ...file,
      id: asFileId('pf'),
      projectId: asProjectId('p1'),
      name: 'project.txt',
    });
    await files.put({ ...file, id: asFileId('att'), projectId: null, name: 'a.txt' });
    await createProviderStore(db).put(provider);

    const projectBackup = parseBackupText(
      await (
        await exportBackup(db, { kind: 'project', projectId: asProjectId('p1') }, clock)
      ).text(),
    );
    const sessionBackup = parseBackupText(
      await (
        await exportBackup(db, { kind: 'session', sessionId: asSessionId('loose') }, clock)
      ).text(),
    );

    expect(projectBackup.sessions.map((s) => s['id'])).toEqual(['in-project']);
    expect(projectBackup.messages.map((m) => m['id'])).toEqual(['m1']);
    expect(projectBackup.files.map((f) => f['id'])).toEqual(['pf']);
    expect(projectBackup.providers).toEqual([]);
    expect(sessionBackup.messages.map((m) => m['id'])).toEqual(['m2']);
    expect(sessionBackup.files.map((f) => f['id'])).toEqual(['att']);
    await expect(
      exportBackup(db, { kind: 'session', sessionId: asSessionId('gone') }, clock),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('renders the visible chain of a session as Markdown', async () => {
    const db = await openTestDb();
    await seed(db);
    await createMessageStore(db, createFrozenClock()).put(
      buildAssistantMessage('a2', 'a1', {
        status: 'stopped',
        model: { providerId: asProviderId('openai'), modelId: 'gpt-x' },
      }),
    );
    const session = await createSessionStore(db, createFrozenClock()).get(asSessionId('s1'));
    const chain = await createMessageStore(db, createFrozenClock()).loadChain(asMessageId('a2'));
    expect(session).toBeDefined();
    expect(renderSessionMarkdown(session ?? buildSession(), chain)).toBe(
      [
        '# Local title',
        '',
        '## You',
        '',
        'question u1',
        '',
        '## Assistant',
        '',
        'answer a1',
        '',
        '[1] https://doc.test',
        '',
        '## Assistant (gpt-x)',
        '',
        'answer a2',
        '',
        '_Stopped before the end._',
        '',
      ].join('\n'),
    );
  });
});
