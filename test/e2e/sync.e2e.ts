import { readFileSync } from 'node:fs';
import type { Browser, Page } from '@playwright/test';
import { startCouchServer, type CouchServer } from '../couch/server';
import type { MockLlm } from '../mock-llm/server';
import { expect, test } from './fixtures';
import { ChatPage } from './pages/chat-page';
import { SettingsPage } from './pages/settings-page';
import { ShellPage } from './pages/shell-page';

const PASSPHRASE = 'two devices one passphrase';
const DATABASE = 'carrel-e2e';
const FILE_TEXT = 'Kettle notes kept in the laptop file';
const API_KEY = 'sk-sync-e2e-key';

/** A CouchDB-protocol server for the whole file, on a loopback port the system picks. */
let couch: CouchServer;
test.beforeAll(async () => {
  couch = await startCouchServer({ username: 'carrel', password: 'sync-password' });
});
test.afterAll(async () => {
  await couch.close();
});

interface Device {
  page: Page;
  chat: ChatPage;
  shell: ShellPage;
}

/** A device: its own browser profile (context), a provider, and one chat started before sync. */
async function startDevice(
  page: Page,
  llm: MockLlm,
  question: string,
  file?: { name: string; text: string },
): Promise<Device> {
  const settings = new SettingsPage(page);
  const chat = new ChatPage(page);
  await settings.open();
  await settings.addProvider({
    name: 'Mock',
    baseUrl: `${llm.url}/v1`,
    apiKey: API_KEY,
    model: 'gpt-4o-mini',
  });
  await chat.newChat();
  if (file !== undefined) {
    await page.getByLabel('Attach files to the message').setInputFiles({
      name: file.name,
      mimeType: 'text/plain',
      buffer: Buffer.from(file.text),
    });
    await expect(page.getByTestId('attachment-chip')).toHaveAttribute('data-status', 'ready');
  }
  await chat.send(question);
  await expect(chat.lastAnswer()).toContainText(`You said: ${question}`);
  return { page, chat, shell: new ShellPage(page) };
}

async function newProfile(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage();
}

function syncSection(page: Page) {
  return page.locator('section[aria-labelledby="sync-title"]');
}

async function fillSyncForm(page: Page, passphrase: string): Promise<void> {
  await page.goto('/#/settings/sync');
  const section = syncSection(page);
  await section.getByLabel('Server address').fill(couch.url);
  await section.getByLabel('Database').fill(DATABASE);
  await section.getByLabel('User name').fill('carrel');
  await section.getByLabel('Password').fill('sync-password');
  await section.getByLabel('Encryption passphrase').fill(passphrase);
  await section.getByRole('button', { name: 'Start syncing' }).click();
}

async function turnOnSync(page: Page): Promise<void> {
  await fillSyncForm(page, PASSPHRASE);
  // The first round derives the key (PBKDF2, 600,000 iterations) and sends everything.
  await expect(page.getByTestId('sync-status')).toContainText(/Up to date\. Last synced (?!not yet)/);
}

/**
 * Settings → Sync, "Sync now", and the round finished without an error. The status's words can
 * read the same before and after (two rounds within one second, the live feed's and this one),
 * so the round is known by its time in milliseconds and by the button coming back.
 */
async function syncNow(page: Page): Promise<void> {
  await page.goto('/#/settings/sync');
  const status = page.getByTestId('sync-status');
  const lastSyncedAt = async () => Number((await status.getAttribute('data-last-synced-at')) || 0);
  const before = await lastSyncedAt();
  const button = syncSection(page).getByRole('button', { name: 'Sync now' });
  await button.click();
  await expect.poll(lastSyncedAt).toBeGreaterThan(before);
  await expect(button).toBeEnabled();
  await expect(status).toContainText('Up to date');
  await expect(page.getByTestId('sync-error')).toHaveCount(0);
}

async function openChat(device: Device, title: string): Promise<void> {
  await device.shell.sessionRow(title).getByRole('link').first().click();
  await expect(device.chat.userMessages().first()).toBeVisible();
}

async function sendInChat(device: Device, title: string, text: string): Promise<void> {
  await device.page.goto('/#/');
  await openChat(device, title);
  await device.chat.send(text);
  await expect(device.chat.lastAnswer()).toContainText(`You said: ${text}`);
}

/** Chat titles come from the model (here "You said: User: <question>"): rows are found by part. */
async function renameChat(device: Device, titlePart: string, newTitle: string): Promise<void> {
  const row = device.shell.sessionRow(titlePart);
  await row.getByRole('button', { name: /^Actions for / }).click();
  await row.getByRole('button', { name: 'Rename', exact: true }).click();
  const input = device.page.getByLabel('Chat title');
  await input.fill(newTitle);
  await input.press('Enter');
  await expect(device.shell.sessionRow(newTitle)).toHaveCount(1);
}

async function deleteChat(device: Device, titlePart: string): Promise<void> {
  const row = device.shell.sessionRow(titlePart);
  await row.getByRole('button', { name: /^Actions for / }).click();
  await row.getByRole('button', { name: 'Delete', exact: true }).click();
}

async function newChat(device: Device, text: string): Promise<void> {
  await device.chat.newChat();
  await device.chat.send(text);
  await expect(device.chat.lastAnswer()).toContainText(`You said: ${text}`);
}

/** Every chat this device shows: its questions and answers as they read on screen. */
async function readChats(device: Device): Promise<{ questions: string[]; answers: string[] }[]> {
  await device.page.goto('/#/');
  const rows = device.page.getByTestId('session-row');
  const chats: { questions: string[]; answers: string[] }[] = [];
  for (let index = 0; index < (await rows.count()); index++) {
    // From an empty new chat, so no message of the chat read before can be counted as this one's.
    await device.page.goto('/#/');
    await expect(device.chat.userMessages()).toHaveCount(0);
    await rows.nth(index).getByRole('link').first().click();
    await expect(device.chat.userMessages().first()).toBeVisible();
    // Every question has its answer here: one answer per question once the chat is drawn.
    await expect
      .poll(async () => (await device.chat.answers().count()) - (await device.chat.userMessages().count()))
      .toBe(0);
    chats.push({
      questions: await device.chat.userMessages().allInnerTexts(),
      answers: await device.chat.answers().allInnerTexts(),
    });
  }
  return chats;
}

/** Each expected chat (its questions in order) is shown exactly once, whole, with its answers. */
function expectChats(shown: { questions: string[]; answers: string[] }[], expected: string[][]) {
  expect(shown).toHaveLength(expected.length);
  for (const questions of expected) {
    const matching = shown.filter((chat) => chat.questions[0]?.includes(questions[0] ?? '-'));
    expect(matching, `the chat that starts "${questions[0]}"`).toHaveLength(1);
    const chat = matching[0];
    expect(chat?.questions).toHaveLength(questions.length);
    questions.forEach((question, index) => {
      expect(chat?.questions[index]).toContain(question);
      expect(chat?.answers[index]).toContain(`You said: ${question}`);
    });
  }
}

test.describe('sync across devices', () => {
  test('two profiles edit offline, reconnect and converge; deletions travel; a file opens on the other; the server holds only ciphertext', async ({
    browser,
    page,
    llm,
  }) => {
    test.setTimeout(180_000);
    llm.setScenario({ kind: 'echo' });
    const laptop = await startDevice(page, llm, 'Question from the laptop', {
      name: 'kettle.txt',
      text: FILE_TEXT,
    });
    const phone = await startDevice(await newProfile(browser), llm, 'Question from the phone');

    await turnOnSync(laptop.page);

    // A wrong passphrase on the second device: an error in words, and nothing written anywhere.
    const seqBefore = await couch.readUpdateSeq(DATABASE);
    await fillSyncForm(phone.page, 'not the passphrase at all');
    await expect(syncSection(phone.page).getByTestId('sync-error')).toContainText(
      'This passphrase does not open the sync database',
    );
    expect(await couch.readUpdateSeq(DATABASE)).toEqual(seqBefore);
    await phone.page.reload();
    await expect(syncSection(phone.page).getByRole('button', { name: 'Start syncing' })).toBeVisible();
    await expect(phone.page.getByTestId('session-row')).toHaveCount(1);

    await turnOnSync(phone.page);
    // The laptop hears of the phone's chat through its live (long-polled) feed.
    await laptop.page.goto('/#/');
    await expect(laptop.page.getByTestId('session-row')).toHaveCount(2);

    // Both lose the server; each adds to a chat, starts one, and the phone renames the laptop's.
    await couch.goOffline();
    await sendInChat(laptop, 'Question from the laptop', 'Laptop offline follow-up');
    await newChat(laptop, 'Laptop offline chat');
    await sendInChat(phone, 'Question from the phone', 'Phone offline follow-up');
    await newChat(phone, 'Phone offline chat');
    await phone.page.goto('/#/');
    await renameChat(phone, 'Question from the laptop', 'Renamed on the phone');

    await couch.goOnline();
    await syncNow(laptop.page);
    await syncNow(phone.page);
    await syncNow(laptop.page);

    const expected = [
      ['Question from the laptop', 'Laptop offline follow-up'],
      ['Question from the phone', 'Phone offline follow-up'],
      ['Laptop offline chat'],
      ['Phone offline chat'],
    ];
    for (const device of [laptop, phone]) {
      expectChats(await readChats(device), expected);
      // The rename from one device and the new turns from the other both hold.
      await expect(device.shell.sessionRow('Renamed on the phone')).toHaveCount(1);
    }

    // A chat deleted on the laptop leaves the phone too (the phone's live feed brings it).
    await laptop.page.goto('/#/');
    await deleteChat(laptop, 'Laptop offline chat');
    await expect(laptop.shell.toast(/Deleted/)).toHaveCount(0, { timeout: 12_000 });
    await expect(laptop.page.getByTestId('session-row')).toHaveCount(3);
    await phone.page.goto('/#/');
    await expect(phone.shell.sessionRow('Laptop offline chat')).toHaveCount(0);
    await expect(phone.page.getByTestId('session-row')).toHaveCount(3);

    // The laptop's file opens on the phone: its text at once, its bytes fetched when asked for.
    await phone.page.goto('/#/');
    await openChat(phone, 'Renamed on the phone');
    await phone.page.getByTestId('message-attachment').first().click();
    const viewer = phone.page.getByTestId('file-viewer');
    await expect(viewer.getByTestId('file-viewer-text')).toHaveText(FILE_TEXT);
    await expect(viewer.getByTestId('file-original-state')).toContainText('on the sync server');
    await couch.goOffline();
    await viewer.getByRole('button', { name: 'Download original' }).click();
    await expect(viewer.getByTestId('file-original-error')).toContainText(
      'Cannot reach the sync server',
    );
    await couch.goOnline();
    const downloading = phone.page.waitForEvent('download');
    await viewer.getByRole('button', { name: 'Download original' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('kettle.txt');
    expect(readFileSync(await download.path(), 'utf8')).toBe(FILE_TEXT);
    await expect(viewer.getByTestId('file-original-state')).toHaveCount(0);

    const stored = await couch.readStoredText(DATABASE);
    expect(stored.length).toBeGreaterThan(1_000);
    // The file's bytes are on the server (as an attachment), encrypted like everything else.
    expect(stored).toContain('"_attachments"');
    for (const plain of [
      'Question from',
      'offline',
      'Renamed on the phone',
      'You said',
      FILE_TEXT,
      'kettle.txt',
      API_KEY,
    ]) {
      expect(stored).not.toContain(plain);
    }
    await phone.page.context().close();
  });

  test('a plain-HTTP server on another host is explained, not attempted', async ({ page }) => {
    await page.goto('/#/settings/sync');
    await page.getByLabel('Server address').fill('http://couch.example.com:5984');
    await expect(page.getByTestId('sync-url-problem')).toContainText('https://');
  });
});
