import { buildLongChatTexts, seedSessionRows } from '../support/seed-session';
import { expect, test } from './fixtures';

const MESSAGE_COUNT = 1000;
const SESSION_ID = 'long-session';

test('a 1,000-message chat opens at its newest message, renders only what is near the viewport, and scrolls', async ({
  seed,
  page,
  chat,
  llm,
}) => {
  // The seed's first load creates (and upgrades) the app's database; a provider leaves onboarding.
  await seed.provider({ name: 'Mock', baseUrl: `${llm.url}/v1`, apiKey: 'sk-long-e2e', model: 'gpt-4o-mini' }, { open: '/#/settings' });
  await page.evaluate(seedSessionRows, {
    sessionId: SESSION_ID,
    title: 'A very long chat',
    texts: buildLongChatTexts(MESSAGE_COUNT),
  });
  // Every message row the list ever puts in the DOM while the chat opens.
  await page.addInitScript(() => {
    const keys = new Set<string>();
    (window as unknown as { renderedRowKeys: Set<string> }).renderedRowKeys = keys;
    new MutationObserver((records) => {
      for (const record of records)
        for (const node of record.addedNodes) {
          if (!(node instanceof Element)) continue;
          for (const row of [node, ...node.querySelectorAll('[data-key]')]) {
            const key = row.getAttribute('data-key');
            if (key) keys.add(key);
          }
        }
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(`/#/chat/${SESSION_ID}`);
  await page.reload();

  const list = chat.messageList();
  await expect(list).toHaveAttribute('data-count', String(MESSAGE_COUNT));
  await expect(list.getByText('Answer number 999.')).toBeVisible({ timeout: 30_000 });
  const rendered = await list.locator('[data-key]').count();
  expect(rendered).toBeGreaterThan(0);
  expect(rendered).toBeLessThan(80);
  // It went straight to the end: the oldest rows were never rendered on the way.
  const renderedWhileOpening = await page.evaluate(() => [
    ...(window as unknown as { renderedRowKeys: Set<string> }).renderedRowKeys,
  ]);
  expect(renderedWhileOpening).not.toContain(`${SESSION_ID}-m0`);
  expect(renderedWhileOpening.length).toBeLessThan(80);

  // Scroll to the very top: the first question appears, the newest rows are gone from the DOM.
  for (let attempt = 0; attempt < 20; attempt++) {
    await list.evaluate((element) => element.scrollTo({ top: 0 }));
    if (await list.getByText('Question number 0:').isVisible()) break;
    await page.waitForTimeout(100);
  }
  await expect(list.getByText('Question number 0:')).toBeVisible();
  await expect(list.getByText('Answer number 999.')).toHaveCount(0);

  // And back to the bottom.
  await list.evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
  await expect(list.getByText('Answer number 999.')).toBeVisible();
  await page.screenshot({ path: 'test-results/screenshots/long-chat-light-wide.png' });
});

/** The app's message packs as raw IndexedDB holds them: each pack's start, and its rows' pins. */
function readPacks(): Promise<{ start: number; pinned: string[] }[]> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open('carrel');
    request.onerror = () => reject(request.error ?? new Error('open failed'));
    request.onsuccess = () => {
      const db = request.result;
      const read = db.transaction('messagePacks').objectStore('messagePacks').getAll();
      read.onerror = () => reject(read.error ?? new Error('read failed'));
      read.onsuccess = () => {
        db.close();
        const packs = read.result as { start: number; rows: { id: string; isPinned: boolean }[] }[];
        resolve(packs.map((pack) => ({ start: pack.start, pinned: pack.rows.filter((row) => row.isPinned).map((row) => row.id) })));
      };
    };
  });
}

test('a long chat is packed as it is read, and a message pinned in a pack shows pinned after a reload', async ({ seed, page, chat, llm }) => {
  test.setTimeout(90_000);
  await seed.provider({ name: 'Mock', baseUrl: `${llm.url}/v1`, apiKey: 'sk-packs-e2e', model: 'gpt-4o-mini' }, { open: '/#/settings' });
  await page.evaluate(seedSessionRows, { sessionId: SESSION_ID, title: 'A very long chat', texts: buildLongChatTexts(MESSAGE_COUNT) });
  const firstQuestion = chat.userRows().filter({ hasText: 'Question number 0:' });
  const openAtTop = async () => {
    await page.goto(`/#/chat/${SESSION_ID}`);
    await page.reload();
    await expect(chat.messageList().getByText('Answer number 999.')).toBeVisible({ timeout: 30_000 });
    await expect(async () => {
      await chat.scrollToTop();
      await expect(firstQuestion).toBeVisible({ timeout: 500 });
    }).toPass({ timeout: 30_000 });
  };
  // Seeded as an import leaves a chat: no packs. Reading it to the top packs its whole buckets
  // of 128 (depths 0–895), in the background.
  expect(await page.evaluate(readPacks)).toEqual([]);
  await openAtTop();
  await expect.poll(async () => (await page.evaluate(readPacks)).map((pack) => pack.start)).toEqual([0, 128, 256, 384, 512, 640, 768]);

  // Pinning the first question drops the pack that copied it, in the same transaction.
  await chat.togglePin(firstQuestion);
  await expect(firstQuestion).toHaveAttribute('data-pinned', 'true');
  expect((await page.evaluate(readPacks)).map((pack) => pack.start)).not.toContain(0);

  // The next read packs it again as it now is, and the one after reads it from that pack.
  await openAtTop();
  await expect(firstQuestion).toHaveAttribute('data-pinned', 'true');
  await expect.poll(async () => (await page.evaluate(readPacks)).find((pack) => pack.start === 0)?.pinned).toEqual([`${SESSION_ID}-m0`]);
  await openAtTop();
  await expect(firstQuestion).toHaveAttribute('data-pinned', 'true');
  await expect(chat.userRows().filter({ hasText: 'Question number 2:' })).toHaveAttribute('data-pinned', 'false');
});
