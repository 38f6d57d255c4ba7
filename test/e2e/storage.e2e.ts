import { readFile } from 'node:fs/promises';
import { expect, test } from './fixtures';
import { SettingsStoragePage } from './pages/settings-storage-page';

const API_KEY = 'sk-e2e-storage-key';

test.describe('Settings › Storage', () => {
  test.beforeEach(async ({ settings, chat, llm }) => {
    await settings.open();
    await settings.addProvider({ kind: 'openai', name: 'Mock OpenAI', baseUrl: `${llm.url}/v1`, apiKey: API_KEY, model: 'gpt-4o-mini' });
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
    expect(download.suggestedFilename()).toMatch(/^carrel-backup-\d{4}-\d{2}-\d{2}\.json$/);
    const text = await readFile(await download.path(), 'utf8');
    expect(text).toContain('Tell me about llamas');
    expect(text).not.toContain(API_KEY);

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
