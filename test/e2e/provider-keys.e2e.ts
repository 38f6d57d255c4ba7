import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect, test } from './fixtures';
import type { SettingsPage } from './pages/settings-page';
import { SettingsStoragePage } from './pages/settings-storage-page';

/**
 * Keys belong to the origin they were entered for. The `keyHygiene` fixture also runs after
 * each of these tests and fails on a key found anywhere but in requests to its own origin.
 */

interface BackupProvider {
  name: string;
  baseUrl: string;
  headers: Record<string, string>;
  updatedAt: number;
}

interface ExportedBackup {
  providers: BackupProvider[];
  /** Every line of the file, parsed; `providers` are the rows inside them, edited in place. */
  records: { table?: string; row?: unknown }[];
}

async function exportWithoutKeys(settings: SettingsPage, storage: SettingsStoragePage): Promise<ExportedBackup> {
  await settings.open();
  const download = await storage.exportEverything({ includeApiKeys: false });
  // One record per line: the providers are the rows of the providers table.
  const lines = (await readFile(await download.path(), 'utf8')).split('\n').filter((line) => line !== '');
  const records = lines.map((line) => JSON.parse(line) as { table?: string; row?: unknown });
  const providers = records.flatMap((record) => (record.table === 'providers' ? [record.row as BackupProvider] : []));
  return { providers, records };
}

/** An exported backup goes back as its lines; anything else as one JSON document (version 1). */
async function importBackup(storage: SettingsStoragePage, backup: ExportedBackup | object): Promise<void> {
  const text =
    'records' in backup ? backup.records.map((record) => `${JSON.stringify(record)}\n`).join('') : JSON.stringify(backup);
  await storage.importFile({ name: 'backup.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
}

test('a backup that points a stored provider at another host brings no key, and nothing reaches that host', async ({ page, settings, chat, llm }) => {
  const canary = `sk-CANARY-${randomUUID()}`;
  const storage = new SettingsStoragePage(page);
  await settings.open();
  await settings.addProvider({ kind: 'openai', name: 'Home OpenAI', baseUrl: `${llm.url}/v1`, apiKey: canary, model: 'gpt-4o-mini' });

  // The same server under another origin (localhost instead of 127.0.0.1) stands for a foreign host.
  const foreignBase = `${llm.url.replace('127.0.0.1', 'localhost')}/v1`;
  const backup = await exportWithoutKeys(settings, storage);
  for (const provider of backup.providers) Object.assign(provider, { baseUrl: foreignBase, updatedAt: provider.updatedAt + 1_000 });
  await importBackup(storage, backup);
  await expect(page.getByTestId('import-keys-dropped')).toContainText('Home OpenAI: the backup changed the address or headers');
  const card = settings.providerCard('Home OpenAI');
  await expect(card.getByTestId('key-needed')).toBeVisible();
  await expect(card.getByTestId('masked-key')).toHaveText('no key');

  llm.clearRequests();
  await chat.newChat();
  await chat.send('Where does my key go?');
  await expect(chat.lastAnswer().getByTestId('answer-error')).toHaveText(
    'Home OpenAI needs its API key before Carrel can send anything. Enter the key in Settings › Providers.',
  );
  expect(llm.requests().filter((request) => request.provider === 'openai' && !request.isPreflight)).toEqual([]);
  expect(JSON.stringify(llm.requests()), 'requests since the import').not.toContain(canary);
});

test('a provider restored from a backup without keys is marked "key needed" and asks for the key before sending', async ({ page, settings, chat, llm }) => {
  const storage = new SettingsStoragePage(page);
  await settings.open();
  // What an export without keys holds for an Anthropic provider.
  await importBackup(storage, {
    format: 'carrel-backup',
    version: 1,
    exportedAt: 1,
    scope: { kind: 'all' },
    hasApiKeys: false,
    ...Object.fromEntries(['sessions', 'messages', 'projects', 'files', 'chunks', 'agents', 'settings', 'usage'].map((table) => [table, []])),
    providers: [
      {
        id: 'restored-anthropic',
        name: 'Restored Anthropic',
        kind: 'anthropic',
        preset: 'anthropic',
        baseUrl: `${llm.url}/v1`,
        apiKey: '',
        headers: {},
        models: ['claude-sonnet-4-5-20250929'],
        contextWindowOverrides: {},
        createdAt: 1,
        updatedAt: 1,
      },
    ],
  });
  await expect(page.getByTestId('import-result')).toContainText('Imported:');
  const card = settings.providerCard('Restored Anthropic');
  await expect(card.getByTestId('key-needed')).toHaveText('key needed');

  llm.setScenario({ kind: 'text', text: 'Answered with the key.' });
  await chat.newChat();
  await chat.send('Hello again');
  await expect(chat.lastAnswer().getByTestId('answer-error')).toContainText('Restored Anthropic needs its API key');
  expect(llm.requests().filter((request) => request.provider === 'anthropic' && !request.isPreflight)).toEqual([]);

  await settings.open();
  const keyForm = card.getByRole('form', { name: 'API key for Restored Anthropic' });
  await keyForm.getByLabel('API key').fill('test-entered-again-0123');
  await keyForm.getByRole('button', { name: 'Save key' }).click();
  await expect(card.getByTestId('key-needed')).toHaveCount(0);
  await chat.newChat();
  await chat.send('Hello once more');
  await expect(chat.lastAnswer()).toContainText('Answered with the key.');
  const sent = llm.requests().find((request) => request.provider === 'anthropic' && !request.isPreflight);
  expect(sent?.headers['x-api-key']).toBe('test-entered-again-0123');
});

test('a provider error that echoes the key shows, stores and exports it removed', async ({ page, settings, chat, llm }) => {
  const canary = `sk-CANARY-${randomUUID()}`;
  const storage = new SettingsStoragePage(page);
  await settings.open();
  await settings.addProvider({ kind: 'openai', name: 'Echoing OpenAI', baseUrl: `${llm.url}/v1`, apiKey: canary, model: 'gpt-4o-mini' });
  // A gateway that quotes the request's Authorization header back in its error.
  llm.setScenario({
    kind: 'http-error',
    status: 400,
    body: JSON.stringify({ error: { message: `Header "Authorization: Bearer ${canary}" is not allowed here.`, type: 'invalid_request_error' } }),
  });
  await chat.newChat();
  await chat.send('Will this work?');
  const error = chat.lastAnswer().getByTestId('answer-error');
  await expect(error).toContainText('Header "Authorization: Bearer [API key removed]" is not allowed here.');
  await expect(chat.lastAnswer()).not.toContainText(canary);

  await settings.open();
  const download = await storage.exportEverything({ includeApiKeys: false });
  const exported = await readFile(await download.path(), 'utf8');
  expect(exported).toContain('Will this work?');
  expect(exported).not.toContain(canary);
  // The keyHygiene fixture then finds the canary in no IndexedDB table but the providers' (the
  // stored answer's error included).
});
