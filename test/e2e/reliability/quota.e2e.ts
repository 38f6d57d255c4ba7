import type { Page } from '@playwright/test';
import { StorageError } from '../../../src/storage/errors';
import { pickRunCount } from '../../reliability/soak';
import { expect, test } from '../fixtures';
import { readRawRows } from './raw-rows';
import { StorageQuota } from './storage-quota';

/**
 * Suite 6 in the browser (issues 5 and 12): the origin's quota is pinned with the DevTools
 * protocol, then lowered while a file is uploaded and while an answer streams. The person must
 * see the storage-full message, lose nothing already saved, and be able to go on once space is
 * freed. Service workers are blocked so the origin's usage is only the app's IndexedDB.
 */
test.use({ serviceWorkers: 'block' });

const RUNS = pickRunCount(1, 5);
/** The room the app starts with: far more than these tests write, far less than a real disk. */
const STARTING_ROOM = 8_000_000;
/** Less than the upload below, more than the small writes around it. */
const TIGHT_ROOM = 100_000;
/** Less than one checkpoint of the long answer below. */
const NO_ROOM = 2_000;
const QUOTA_MESSAGE = new StorageError('quota_exceeded').message;
const BIG_FILE = {
  name: 'harbour-log.txt',
  mimeType: 'text/plain',
  // About 280 KB of text: the Blob alone is nearly three times the room left.
  buffer: Buffer.from('The harbour master logs every ship that enters the port before noon. '.repeat(4_000)),
};
const SMALL_FILE = {
  name: 'tide-table.txt',
  mimeType: 'text/plain',
  buffer: Buffer.from('High tide at 06:12 and 18:40; low tide at 00:05 and 12:27.'),
};
/** 150 KB streamed over about 15 s: a checkpoint every second, each larger than NO_ROOM. */
const LONG_ANSWER = 'The tide turns twice a day. '.repeat(5_400);

async function attach(page: Page, file: typeof SMALL_FILE): Promise<void> {
  await page.getByLabel('Attach files to the message').setInputFiles([file]);
}

const chipFor = (page: Page, name: string) => page.getByTestId('attachment-chip').filter({ hasText: name });

const quotaTest = test.extend<{ quota: StorageQuota }>({
  // Automatic, so it is pinned before the app's first write: see storage-quota.ts for why.
  quota: [
    async ({ page, baseURL }, use) => {
      await use(await StorageQuota.limitBeforeFirstLoad(page, new URL(baseURL ?? '').origin, STARTING_ROOM));
    },
    { auto: true },
  ],
});

quotaTest.describe('storage quota exhausted in the browser', () => {
  quotaTest.beforeEach(async ({ seed, llm }) => {
    quotaTest.setTimeout(90_000);
    await seed.provider({ name: 'Mock', baseUrl: `${llm.url}/v1`, apiKey: 'sk-e2e-quota', model: 'gpt-4o-mini' }, { open: '/#/settings' });
  });

  for (let run = 1; run <= RUNS; run++) {
    quotaTest(`run ${run}: an upload into full storage shows the message, keeps the chat and its file, and works once space is freed`, async ({
      page,
      chat,
      llm,
      quota,
    }) => {
      llm.setScenario({ kind: 'text', text: 'Noted the tides.' });
      await chat.newChat();
      await attach(page, SMALL_FILE);
      await expect(chipFor(page, SMALL_FILE.name)).toHaveAttribute('data-status', 'ready', { timeout: 20_000 });
      await chat.send('Here are the tides');
      await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
      const before = await readRawRows(page);

      await quota.leaveFree(TIGHT_ROOM);
      await attach(page, BIG_FILE);
      const refused = chipFor(page, BIG_FILE.name);
      await expect(refused).toHaveAttribute('data-status', 'failed', { timeout: 30_000 });
      await expect(refused).toContainText(QUOTA_MESSAGE);
      // Nothing half-stored, nothing lost; the same after a reload with the storage still full.
      expect(await readRawRows(page)).toEqual(before);
      await page.reload();
      await expect(chat.userMessages()).toHaveText(['Here are the tides']);
      await expect(chat.lastAnswer()).toContainText('Noted the tides.');
      expect(await readRawRows(page)).toEqual(before);

      // Space freed: the same file goes in and travels with the next message.
      await quota.leaveFree(STARTING_ROOM);
      await attach(page, BIG_FILE);
      await expect(chipFor(page, BIG_FILE.name)).toHaveAttribute('data-status', 'ready', { timeout: 60_000 });
      llm.setScenario({ kind: 'text', text: 'Logged the harbour.' });
      await chat.send('And here is the harbour log');
      await expect(chat.lastAnswer()).toContainText('Logged the harbour.');
      await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
      const after = await readRawRows(page);
      expect(after.files.map((file) => `${file.name} ${file.status}`).sort()).toEqual([
        `${BIG_FILE.name} ready`,
        `${SMALL_FILE.name} ready`,
      ]);
      expect(after.messages.filter((message) => message.role === 'user').map((message) => message.text).sort()).toEqual([
        'And here is the harbour log',
        'Here are the tides',
      ]);
    });

    quotaTest(`run ${run}: an answer whose checkpoint meets full storage shows the message, keeps the question and the saved part, and the chat goes on once space is freed`, async ({
      page,
      chat,
      llm,
      quota,
    }) => {
      llm.setScenario({ kind: 'text', text: LONG_ANSWER, chunkSize: 100, tokensPerSecond: 100 });
      await chat.newChat();
      await chat.send('How often does the tide turn?');
      // Wait for a checkpoint to hold part of the answer, then take the room away.
      let savedBefore = '';
      await expect
        .poll(async () => {
          savedBefore = (await readRawRows(page)).messages.find((message) => message.role === 'assistant')?.text ?? '';
          return savedBefore.length;
        })
        .toBeGreaterThan(0);
      await quota.leaveFree(NO_ROOM);

      await expect(page.getByTestId('chat-error')).toContainText(QUOTA_MESSAGE, { timeout: 30_000 });
      // The run is over: the answer is not left "Answering…", and Retry is offered.
      await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'interrupted');
      await expect(chat.lastAnswer().getByRole('button', { name: 'Retry' })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);

      await quota.leaveFree(STARTING_ROOM);
      await page.reload();
      await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'interrupted');
      await chat.scrollToTop();
      await expect(chat.userMessages()).toHaveText(['How often does the tide turn?']);
      const rows = await readRawRows(page);
      expect(rows.messages.filter((message) => message.status === 'streaming'), 'rows left streaming').toEqual([]);
      const saved = rows.messages.find((message) => message.role === 'assistant')?.text ?? '';
      expect(saved.length, 'the saved part is kept').toBeGreaterThanOrEqual(savedBefore.length);
      expect(LONG_ANSWER.startsWith(saved), 'the saved part is a prefix of the answer').toBe(true);

      // Writable again: a new question is answered and saved.
      llm.setScenario({ kind: 'text', text: 'Twice, roughly every 12 hours and 25 minutes.' });
      await chat.send('Exactly how often?');
      await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
      await expect(chat.lastAnswer()).toContainText('Twice, roughly');
      const after = await readRawRows(page);
      expect(after.messages.filter((message) => message.role === 'user')).toHaveLength(2);
      expect(after.messages.filter((message) => message.status === 'complete' && message.role === 'assistant')).toHaveLength(1);
    });
  }
});
