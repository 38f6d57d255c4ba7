import { expect, test } from './fixtures';
import type { MockLlm } from '../mock-llm/server';
import type { Page } from '@playwright/test';
import type { ChatPage } from './pages/chat-page';
import { ShellPage } from './pages/shell-page';
import { readStoredText } from './support/stored-text';

/**
 * Starts a chat and returns its title once the model has named it (the mock answers the title
 * request with the same text: its first line, plain, less its final period): renaming before that would race the
 * model-written title.
 */
async function startChat(page: Page, chat: ChatPage, llm: MockLlm, question: string, answer: string): Promise<string> {
  llm.setScenario({ kind: 'text', text: answer });
  await page.keyboard.press('Control+Shift+O');
  await chat.send(question);
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
  await expect(page).toHaveURL(/#\/chat\/.+/);
  const title = (answer.split('\n')[0] ?? '').replaceAll('**', '').replace(/\.$/, '');
  await expect(new ShellPage(page).sidebar.getByRole('link', { name: title, exact: true })).toBeVisible();
  return title;
}

/** Longer than an Undo toast stays (ACTION_TOAST_MS, 10 s, in src/state/shell/notices.svelte.ts). */
const UNDO_TOAST_LIFETIME_MS = 11_000;

test.describe('the app shell', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.provider({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini', apiKey: 'sk-e2e' });
  });

  /** Two chats, renamed to known titles; the newest is listed first. */
  async function startTwoChats(page: Page, chat: ChatPage, llm: MockLlm, shell: ShellPage): Promise<void> {
    await shell.rename(await startChat(page, chat, llm, 'Tell me about zebras', 'Zebras have stripes.'), 'Zebra facts');
    await shell.rename(await startChat(page, chat, llm, 'How do volcanoes form?', 'Magma rises through the crust.'), 'Volcanoes');
  }

  test('renamed chats are listed newest first under Today, and a pinned one moves to Pinned', async ({ page, chat, llm }) => {
    const shell = new ShellPage(page);
    await startTwoChats(page, chat, llm, shell);
    await expect(shell.group('Today').getByRole('link')).toHaveText(['Volcanoes', 'Zebra facts']);
    await shell.sessionAction('Zebra facts', 'Pin');
    await expect(shell.group('Pinned').getByRole('link')).toHaveText([/Zebra facts/]);
    await expect(shell.group('Today').getByRole('link')).toHaveText(['Volcanoes']);
  });

  test('search finds message text, not only titles, and opens the chat', async ({ page, chat, llm }) => {
    const shell = new ShellPage(page);
    await startTwoChats(page, chat, llm, shell);
    const hits = await shell.search('magma');
    await expect(hits).toHaveCount(1);
    await expect(hits.first()).toContainText('Volcanoes');
    await expect(hits.first()).toContainText('Magma rises');
    await hits.first().click();
    await expect(shell.searchDialog).toBeHidden();
    await expect(chat.userMessages()).toHaveText(['How do volcanoes form?']);
  });

  test('a deleted chat comes back untouched with Undo', async ({ page, chat, llm }) => {
    const shell = new ShellPage(page);
    await shell.rename(await startChat(page, chat, llm, 'How do volcanoes form?', 'Magma rises through the crust.'), 'Volcanoes');
    await shell.sessionAction('Volcanoes', 'Delete');
    await expect(shell.sidebar.getByRole('link', { name: 'Volcanoes' })).toHaveCount(0);
    await shell.undo(/Deleted "Volcanoes"/);
    await shell.sidebar.getByRole('link', { name: 'Volcanoes' }).click();
    await expect(chat.userMessages()).toHaveText(['How do volcanoes form?']);
    await expect(chat.lastAnswer()).toContainText('Magma rises through the crust.');
  });

  test('a deleted chat is gone for good once its Undo toast has gone (not while the pointer rests on it), also after a reload', async ({ page, chat, llm }) => {
    const shell = new ShellPage(page);
    // Two chats under the titles the model gave them.
    const zebras = await startChat(page, chat, llm, 'Tell me about zebras', 'Zebras have stripes.');
    const volcanoes = await startChat(page, chat, llm, 'How do volcanoes form?', 'Magma rises through the crust.');
    // The page's clock goes on at its own pace, but can skip ahead: the toast's lifetime is
    // jumped over instead of waited out.
    await page.clock.install();
    await shell.sessionAction(zebras, 'Delete');
    const toast = shell.toast(`Deleted "${zebras}"`);
    await expect(toast).toBeVisible();
    await expect(shell.sidebar.getByRole('link', { name: zebras })).toHaveCount(0);
    // While the pointer rests on the toast, its time stands still; it runs again once the pointer leaves.
    await toast.hover();
    await page.clock.fastForward(UNDO_TOAST_LIFETIME_MS);
    await expect(toast).toBeVisible();
    await page.mouse.move(0, 0);
    await page.clock.fastForward(UNDO_TOAST_LIFETIME_MS);
    await expect(toast).toBeHidden();
    // The toast's end starts the deletion; the reload comes once it is stored (a tab closed before
    // that keeps the chat, by design).
    await expect.poll(async () => (await readStoredText(page)).tables.sessions).not.toContain(zebras);
    await page.reload();
    await expect(shell.sidebar.getByRole('link', { name: volcanoes, exact: true })).toBeVisible();
    await expect(shell.sidebar.getByRole('link', { name: zebras })).toHaveCount(0);
  });

  test('keyboard: shortcuts sheet, Escape stops the answer, new chat and ↑ edits the last message', async ({ page, chat, llm }) => {
    // Outside a text field, ? opens the sheet.
    await page.getByTestId('screen-title').click();
    await page.keyboard.press('?');
    const sheet = page.getByTestId('shortcuts-sheet');
    await expect(sheet).toBeVisible();
    await expect(sheet).toContainText('Search chats');
    await page.keyboard.press('Escape');
    await expect(sheet).toBeHidden();

    llm.setScenario({ kind: 'hang', text: 'An answer that never ends' });
    await chat.send('go on forever');
    await expect(chat.lastAnswer()).toContainText('never ends');
    await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'stopped');

    // ↑ in the empty composer opens the last message for editing.
    await chat.composer.focus();
    await page.keyboard.press('ArrowUp');
    await expect(page.getByLabel('Edited message')).toBeFocused();
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.keyboard.press('Control+Shift+O');
    await expect(page).toHaveURL(/#\/$/);
    await expect(chat.userMessages()).toHaveCount(0);
  });

  test('the sidebar becomes a drawer on a phone, and screens look right in light and dark', async ({ page, chat, llm }) => {
    const shell = new ShellPage(page);
    await startChat(page, chat, llm, 'Screenshot question', 'A short **markdown** answer.\n\n- one\n- two');
    const chatUrl = page.url();
    for (const scheme of ['light', 'dark'] as const) {
      // Reduced motion: the drawer is captured open, not halfway through its slide.
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      await page.setViewportSize({ width: 1280, height: 800 });
      await shell.openPanel();
      await expect(page.getByTestId('inspector-messages')).toBeVisible();
      await shell.screenshot(`chat-wide-${scheme}`);
      await page.getByRole('button', { name: 'Context', exact: true }).click();

      await page.setViewportSize({ width: 390, height: 800 });
      await expect(shell.sidebar).toBeHidden();
      await shell.screenshot(`chat-narrow-${scheme}`);
      await shell.menuButton.click();
      await expect(shell.sidebar).toBeVisible();
      await shell.screenshot(`drawer-narrow-${scheme}`);
      await shell.sidebar.getByRole('link', { name: 'Agents' }).click();
      await expect(shell.sidebar).toBeHidden();
      await expect(page.getByRole('heading', { name: 'Agents', level: 1 })).toBeVisible();
      await shell.screenshot(`agents-narrow-${scheme}`);
      await page.setViewportSize({ width: 1280, height: 800 });
      await shell.screenshot(`agents-wide-${scheme}`);
      await page.goto(chatUrl);
    }
  });
});
