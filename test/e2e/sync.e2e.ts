import type { Browser, Page } from '@playwright/test';
import { startCouchServer, type CouchServer } from '../couch/server';
import type { MockLlm } from '../mock-llm/server';
import { expect, test } from './fixtures';
import { ChatPage } from './pages/chat-page';
import { SettingsPage } from './pages/settings-page';

const PASSPHRASE = 'two devices one passphrase';

/** A CouchDB-protocol server for the whole file, on a loopback port the system picks. */
let couch: CouchServer;
test.beforeAll(async () => {
  couch = await startCouchServer({ username: 'carrel', password: 'sync-password' });
});
test.afterAll(async () => {
  await couch.close();
});

/** A device: its own browser profile (context), a provider, and one chat started offline. */
async function startDevice(
  browser: Browser | null,
  page: Page | null,
  llm: MockLlm,
  question: string,
) {
  const resolved = page ?? (await (await (browser as Browser).newContext()).newPage());
  const settings = new SettingsPage(resolved);
  const chat = new ChatPage(resolved);
  await settings.open();
  await settings.addProvider({
    name: 'Mock',
    baseUrl: `${llm.url}/v1`,
    apiKey: 'sk-sync-e2e-key',
    model: 'gpt-4o-mini',
  });
  await chat.newChat();
  await chat.send(question);
  await expect(chat.lastAnswer()).toContainText('Synced answer');
  return { page: resolved, settings, chat };
}

async function turnOnSync(page: Page, database: string): Promise<void> {
  await page.goto('/#/settings/sync');
  const section = page
    .getByRole('region', { name: 'Sync' })
    .or(page.locator('section[aria-labelledby="sync-title"]'));
  await section.getByLabel('Server address').fill(couch.url);
  await section.getByLabel('Database').fill(database);
  await section.getByLabel('User name').fill('carrel');
  await section.getByLabel('Password').fill('sync-password');
  await section.getByLabel('Encryption passphrase').fill(PASSPHRASE);
  await section.getByRole('button', { name: 'Start syncing' }).click();
  // The first round derives the key (PBKDF2, 600,000 iterations) and sends everything.
  await expect(page.getByTestId('sync-status')).toContainText('Up to date', { timeout: 45_000 });
}

test.describe('sync across devices', () => {
  test('two browser profiles that each started a chat offline end up with both chats', async ({
    browser,
    page,
    llm,
  }) => {
    test.setTimeout(150_000);
    llm.setScenario({ kind: 'text', text: 'Synced answer' });
    const a = await startDevice(null, page, llm, 'Question from the laptop');
    const b = await startDevice(browser, null, llm, 'Question from the phone');

    await turnOnSync(a.page, 'carrel-e2e');
    await turnOnSync(b.page, 'carrel-e2e');
    // The laptop hears of the phone's chat through its live (long-polled) feed, or at Sync now.
    await a.page.getByRole('button', { name: 'Sync now' }).click();

    for (const device of [a, b]) {
      await device.page.goto('/#/');
      await expect(device.page.getByTestId('session-row')).toHaveCount(2, { timeout: 15_000 });
    }
    // Each device opens both chats with their messages.
    for (const device of [a, b]) {
      const questions: string[] = [];
      for (let index = 0; index < 2; index++) {
        await device.page.getByTestId('session-row').nth(index).getByRole('link').first().click();
        await expect(device.chat.userMessages()).toHaveCount(1);
        questions.push(await device.chat.userMessages().innerText());
      }
      expect(questions.sort()).toEqual(['Question from the laptop', 'Question from the phone']);
    }

    const stored = await couch.readStoredText('carrel-e2e');
    expect(stored).not.toContain('Question from');
    expect(stored).not.toContain('Synced answer');
    expect(stored).not.toContain('sk-sync-e2e-key');
    await b.page.context().close();
  });

  test('a plain-HTTP server on another host is explained, not attempted', async ({ page }) => {
    await page.goto('/#/settings/sync');
    await page.getByLabel('Server address').fill('http://couch.example.com:5984');
    await expect(page.getByTestId('sync-url-problem')).toContainText('https://');
  });
});
