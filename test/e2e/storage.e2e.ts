import { readFile, writeFile } from 'node:fs/promises';
import { expect, test } from './fixtures';
import { SettingsStoragePage } from './pages/settings-storage-page';

const API_KEY = 'sk-e2e-storage-key';

test.describe('Settings › Storage', () => {
  test.beforeEach(async ({ seed, chat, llm }) => {
    await seed.provider({ kind: 'openai', name: 'Mock OpenAI', baseUrl: `${llm.url}/v1`, apiKey: API_KEY, model: 'gpt-4o-mini' }, { open: '/#/settings' });
    llm.queueScenarios({ kind: 'text', text: 'Saved answer about llamas.' });
    await chat.newChat();
    await chat.send('Tell me about llamas');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await expect(chat.sessionLinks()).toHaveCount(1);
  });

  test('export, delete everything, then import brings the chats back (keys left out)', async ({ page, settings, chat }) => {
    const storage = new SettingsStoragePage(page);
    await settings.open();
    const download = await storage.exportEverything();
    expect(download.suggestedFilename()).toMatch(/^carrel-backup-\d{4}-\d{2}-\d{2}\.jsonl$/);
    const text = await readFile(await download.path(), 'utf8');
    expect(text).toContain('Tell me about llamas');
    expect(text).not.toContain(API_KEY);
    // The file was written to disk as it was built (the origin's private file system), not
    // gathered in memory: the download is that file.
    const written = await page.evaluate(async () => {
      const folder = await (await navigator.storage.getDirectory()).getDirectoryHandle('carrel-exports');
      const sizes: number[] = [];
      for await (const handle of (folder as unknown as { values(): AsyncIterable<FileSystemFileHandle> }).values()) sizes.push((await handle.getFile()).size);
      return sizes;
    });
    expect(written).toEqual([Buffer.byteLength(text)]);

    await storage.deleteEverything();
    await expect(page).toHaveURL(/\/(#\/?)?$/);
    await expect(chat.sessionLinks()).toHaveCount(0);

    await settings.open();
    await expect(page.getByTestId('provider-list')).toHaveCount(0);
    await storage.importFile({ name: 'backup.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    await expect(page.getByTestId('import-result')).toContainText('Imported:');
    await expect(chat.sessionLinks()).toHaveCount(1);
    // The provider came back without its key.
    await expect(settings.providerCard('Mock OpenAI').getByTestId('masked-key')).toHaveText('no key');

    await chat.sessionLinks().first().click();
    await expect(chat.lastAnswer()).toContainText('Saved answer about llamas.');
  });

  test('a corrupt import shows where it is invalid and keeps the data', async ({ page, settings, chat }) => {
    const storage = new SettingsStoragePage(page);
    await settings.open();
    const corrupt = JSON.stringify({ format: 'carrel-backup', version: 1, exportedAt: 1, sessions: [{ id: 5 }] });
    await storage.importFile({ name: 'corrupt.json', mimeType: 'application/json', buffer: Buffer.from(corrupt) });
    await expect(page.getByTestId('storage-error')).toContainText('This is not a Carrel backup Carrel can import');
    await expect(page.getByTestId('storage-error')).toContainText('"');

    await storage.importFile({ name: 'cut.json', mimeType: 'application/json', buffer: Buffer.from('{"format":"carrel-ba') });
    await expect(page.getByTestId('storage-error')).toContainText('not complete JSON');

    await expect(chat.sessionLinks()).toHaveCount(1);
    await page.reload();
    await expect(chat.sessionLinks()).toHaveCount(1);
    await expect(settings.providerCard('Mock OpenAI')).toBeVisible();
  });

  test('a large import shows its progress, and Cancel leaves the data as it was', async ({ page, settings, chat }) => {
    // A slow disk: every read of the chosen file waits a little, so the import is seen half-way.
    await page.addInitScript(() => {
      const descriptor = Object.getOwnPropertyDescriptor(Blob.prototype, 'arrayBuffer');
      const read = descriptor?.value as (this: Blob) => Promise<ArrayBuffer>;
      Blob.prototype.arrayBuffer = function (this: Blob) {
        return new Promise<void>((resolve) => setTimeout(resolve, 200)).then(() => read.call(this));
      };
    });
    await page.reload();
    const storage = new SettingsStoragePage(page);
    await settings.open();

    await storage.importFile(await writeLargeBackup(9 * 1024 * 1024));
    const job = page.getByTestId('backup-progress');
    await expect(job).toContainText('Importing a backup');
    await expect.poll(async () => Number(await job.getByRole('progressbar').getAttribute('value'))).toBeGreaterThan(0);
    await job.getByRole('button', { name: 'Cancel' }).click();

    await expect(page.getByTestId('storage-error')).toHaveText('Import cancelled: nothing was changed.');
    await expect(job).toHaveCount(0);
    await expect(chat.sessionLinks()).toHaveCount(1);
    await page.reload();
    await expect(chat.sessionLinks()).toHaveCount(1);
  });

  test('an export shows its progress, and Cancel saves no file', async ({ page, settings }) => {
    // A stalled disk: writes to the export file wait until the test lets them go, so the export
    // is still under way when Cancel is pressed, however slow the machine is.
    await page.addInitScript(() => {
      const descriptor = Object.getOwnPropertyDescriptor(FileSystemWritableFileStream.prototype, 'write');
      const write = descriptor?.value as (this: FileSystemWritableFileStream, data: FileSystemWriteChunkType) => Promise<void>;
      let letGo = (): void => undefined;
      const released = new Promise<void>((resolve) => (letGo = resolve));
      (window as unknown as { releaseExportWrites: () => void }).releaseExportWrites = letGo;
      FileSystemWritableFileStream.prototype.write = function (this: FileSystemWritableFileStream, data: FileSystemWriteChunkType) {
        return released.then(() => write.call(this, data));
      };
    });
    await page.reload();
    const storage = new SettingsStoragePage(page);
    await settings.open();
    // More than one part of the file: a write half-way and one at the end.
    await storage.importFile(await writeLargeBackup(5 * 1024 * 1024));
    await expect(page.getByTestId('import-result')).toContainText('Imported:', { timeout: 20_000 });

    const downloads: string[] = [];
    page.on('download', (download) => downloads.push(download.suggestedFilename()));
    await page.getByRole('button', { name: 'Export everything' }).click();
    const job = page.getByTestId('backup-progress');
    await expect(job).toContainText('Exporting a backup');
    await expect.poll(async () => Number(await job.getByRole('progressbar').getAttribute('value'))).toBeGreaterThan(0);
    await job.scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/screenshots/progress-backup-export.png' });
    await job.getByRole('button', { name: 'Cancel' }).click();
    await page.evaluate(() => (window as unknown as { releaseExportWrites: () => void }).releaseExportWrites());

    await expect(page.getByTestId('storage-error')).toHaveText('Export cancelled: no file was saved.');
    await expect(job).toHaveCount(0);
    expect(downloads).toEqual([]);
    // Nothing of the cancelled file is left on disk.
    const kept = await page.evaluate(async () => {
      const folder = await (await navigator.storage.getDirectory()).getDirectoryHandle('carrel-exports', { create: true });
      const names: string[] = [];
      for await (const name of (folder as unknown as { keys(): AsyncIterable<string> }).keys()) names.push(name);
      return names;
    });
    expect(kept).toEqual([]);
    await expect(page.getByRole('button', { name: 'Export everything' })).toBeEnabled();
  });

  test('the usage meter renders, and warns when storage is nearly full', async ({ page, settings }) => {
    await settings.open();
    const usage = page.getByTestId('storage-usage');
    await expect(usage.getByRole('meter')).toBeVisible();
    await expect(usage).toContainText(/of .*\(\d+(\.\d)?%\)/);
    await expect(page.getByTestId('storage-persisted')).toContainText(/persistent/i);
    await expect(page.getByTestId('storage-warning')).toHaveCount(0);

    // The browser reports 90% used (the real quota is gigabytes): the 80% warning shows.
    await page.addInitScript(() => {
      Object.defineProperty(navigator.storage, 'estimate', {
        value: () => Promise.resolve({ usage: 900_000_000, quota: 1_000_000_000 }),
      });
    });
    await page.reload();
    await expect(page.getByTestId('storage-warning')).toBeVisible();
    await expect(page.getByTestId('storage-usage')).toContainText('900 MB of 1.0 GB (90%)');
  });
});

/**
 * A large backup written to the test's output folder, for the file picker to take by path: the
 * browser reads it from disk, as a chosen file, rather than megabytes sent over the protocol.
 */
async function writeLargeBackup(bytes: number): Promise<string> {
  const file = test.info().outputPath('big.jsonl');
  await writeFile(file, buildLargeBackup(bytes));
  return file;
}

/** A version 2 backup of about `bytes` bytes: one chat whose messages are long. */
function buildLargeBackup(bytes: number): Buffer {
  const text = 'llama '.repeat(700);
  const header = { format: 'carrel-backup', version: 2, exportedAt: 1, scope: { kind: 'all' }, hasApiKeys: false };
  const session = { id: 'big', title: 'Big chat', projectId: null, agentId: null, models: [], currentLeafId: null, isPinned: false, isArchived: false, createdAt: 1, updatedAt: 1, version: 0 };
  const lines = [JSON.stringify(header), JSON.stringify({ table: 'sessions', row: session })];
  let size = lines.join('\n').length;
  for (let index = 0; size < bytes; index += 1) {
    const row = { id: `big-${index}`, sessionId: 'big', parentId: index === 0 ? null : `big-${index - 1}`, role: 'user', text, textTokenCount: 700, attachments: [], createdAt: index, updatedAt: index, isPinned: false, isExcluded: false };
    const line = JSON.stringify({ table: 'messages', row });
    lines.push(line);
    size += line.length + 1;
  }
  lines.push(JSON.stringify({ end: true, rows: lines.length - 1 }));
  return Buffer.from(`${lines.join('\n')}\n`);
}
