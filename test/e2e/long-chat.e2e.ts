import { expect, test } from './fixtures';

const MESSAGE_COUNT = 1000;
const SESSION_ID = 'long-session';

/**
 * Writes a 1,000-message session straight into the app's IndexedDB (rows shaped as in
 * src/storage/db.ts), the way a restored backup would leave it. Runs in the page: raw IndexedDB,
 * no test hooks in the app.
 */
async function seedLongSession({ count, sessionId }: { count: number; sessionId: string }): Promise<void> {
  const open = indexedDB.open('carrel');
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error ?? new Error('open failed'));
  });
  const now = Date.now() - count * 1000;
  const tx = db.transaction(['sessions', 'messages'], 'readwrite');
  const messages = tx.objectStore('messages');
  let parentId = '';
  for (let i = 0; i < count; i++) {
    const id = `long-m${String(i)}`;
    const isUser = i % 2 === 0;
    const text = isUser
      ? `Question number ${String(i)}: what about item ${String(i)}?`
      : `Answer number ${String(i)}. Here is **some** detail about item ${String(i - 1)}.\n\n- one point\n- another point`;
    const common = {
      id,
      sessionId,
      parentId,
      createdAt: now + i * 1000,
      updatedAt: now + i * 1000,
      isPinned: false,
      isExcluded: false,
      text,
      tokenCount: 20,
    };
    messages.put(
      isUser
        ? { ...common, role: 'user', status: 'complete', textTokenCount: 20, attachments: [] }
        : {
            ...common,
            role: 'assistant',
            status: 'complete',
            stopReason: 'completed',
            steps: [{ text, textTokenCount: 20, toolCalls: [] }],
            citations: [],
          },
    );
    parentId = id;
  }
  tx.objectStore('sessions').put({
    id: sessionId,
    title: 'A very long chat',
    projectId: null,
    agentId: null,
    models: [],
    currentLeafId: parentId,
    isPinned: false,
    isArchived: false,
    createdAt: now,
    updatedAt: now + count * 1000,
    version: 1,
  });
  await new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('write failed'));
  });
  db.close();
}

test('a 1,000-message chat opens at its newest message, renders only what is near the viewport, and scrolls', async ({
  page,
  chat,
  settings,
  llm,
}) => {
  // Opening Settings creates (and upgrades) the app's database; a provider leaves onboarding.
  await settings.open();
  await settings.addProvider({ name: 'Mock', baseUrl: `${llm.url}/v1`, apiKey: 'sk-long-e2e', model: 'gpt-4o-mini' });
  await page.evaluate(seedLongSession, { count: MESSAGE_COUNT, sessionId: SESSION_ID });
  await page.goto(`/#/chat/${SESSION_ID}`);
  await page.reload();

  const list = chat.messageList();
  await expect(list).toHaveAttribute('data-count', String(MESSAGE_COUNT), { timeout: 15_000 });
  await expect(list.getByText('Answer number 999.')).toBeVisible({ timeout: 10_000 });
  const rendered = await list.locator('[data-key]').count();
  expect(rendered).toBeGreaterThan(0);
  expect(rendered).toBeLessThan(80);

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
