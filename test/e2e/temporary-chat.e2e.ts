import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { ProjectPage } from './pages/project-page';
import { SettingsStoragePage } from './pages/settings-storage-page';
import { ShellPage } from './pages/shell-page';
import { placesHolding, readStoredText } from './support/stored-text';

const QUESTION = 'Keep this between us: what is 6 times 7?';
const REPLY = 'Forty-two, and nobody else will read this temporary answer.';

/** Every table of the app's database that holds `needle`: none, for a temporary chat. */
async function tablesHolding(page: Page, needle: string): Promise<string[]> {
  return placesHolding((await readStoredText(page)).tables, needle);
}

/**
 * Reloads from the page itself, as a person's F5 would (Playwright's own reload skips the
 * beforeunload step), accepting the browser's question if it asks; returns the dialogs asked.
 */
async function reloadAsAPerson(page: Page): Promise<string[]> {
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.type());
    void dialog.accept();
  });
  const loaded = page.waitForEvent('load');
  await page.evaluate(() => void setTimeout(() => location.reload(), 0));
  await loaded;
  return dialogs;
}

test.describe('a temporary chat', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.provider({ name: 'Mock OpenAI', baseUrl: `${llm.url}/v1`, apiKey: 'sk-e2e-temporary', model: 'gpt-4o-mini' });
  });

  test('streams an answer, shows its title, and leaves nothing in the database, the sidebar or search', async ({ page, chat, llm }) => {
    // Slow enough (a few seconds) that a page busy on a loaded machine still sees it part-way.
    llm.queueScenarios({ kind: 'text', text: REPLY, chunkSize: 4, tokensPerSecond: 10 }, { kind: 'text', text: 'Multiplying in private' });
    await chat.temporaryChat();
    await expect(page).toHaveURL(/#\/temporary$/);
    await expect(page.getByTestId('temporary-badge')).toBeVisible();
    await expect(page.getByTestId('composer-temporary')).toContainText('not saved');

    await chat.send(QUESTION);
    // Partial text first, then the whole answer: it streamed rather than arriving at once.
    await expect(chat.lastAnswer()).toContainText('Forty-two');
    await expect(chat.lastAnswer()).not.toContainText('temporary answer.');
    await expect(chat.lastAnswer()).toContainText(REPLY);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    // The model-written title is shown, and kept nowhere.
    await expect(page.getByTestId('screen-title')).toHaveText('Multiplying in private');

    // Never in the address, the sidebar, search, or any table of the database (chats, messages,
    // files, search passages, usage, the sync records).
    await expect(page).toHaveURL(/#\/temporary$/);
    await expect(chat.sessionLinks()).toHaveCount(0);
    expect(await tablesHolding(page, '6 times 7')).toEqual([]);
    expect(await tablesHolding(page, 'Forty-two')).toEqual([]);
    expect(await tablesHolding(page, 'Multiplying in private')).toEqual([]);
    const stored = await readStoredText(page);
    for (const table of ['sessions', 'messages', 'files', 'fileTexts', 'searchBlocks', 'usage', 'summaries', 'syncRecords']) {
      expect(stored.tables[table], table).toBe('');
    }
    const results = await new ShellPage(page).search('6 times 7');
    await expect(page.getByTestId('search-dialog')).toContainText('No chat matches “6 times 7”.');
    await expect(results).toHaveCount(0);
  });

  test('is gone after a reload, which the browser asks about first', async ({ page, chat, llm }) => {
    llm.queueScenarios({ kind: 'text', text: REPLY });
    // The shortcut opens one as well as the sidebar does (once the app listens for it).
    await expect(chat.composer).toBeVisible();
    await page.keyboard.press('Control+Shift+E');
    await expect(page).toHaveURL(/#\/temporary$/);
    await chat.send(QUESTION);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    expect(await reloadAsAPerson(page)).toEqual(['beforeunload']);

    await expect(page.getByTestId('temporary-badge')).toBeVisible();
    await expect(chat.userMessages()).toHaveCount(0);
    await expect(page.getByText(REPLY)).toHaveCount(0);
    await expect(chat.sessionLinks()).toHaveCount(0);
  });

  test('is left out of a backup made while it is open', async ({ page, chat, llm }) => {
    llm.queueScenarios({ kind: 'text', text: REPLY });
    await chat.temporaryChat();
    await chat.send(QUESTION);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    // Settings in the same page: the temporary chat stays alive meanwhile.
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
    const download = await new SettingsStoragePage(page).exportEverything();
    const backup = await readFile(await download.path(), 'utf8');
    expect(backup).toContain('Mock OpenAI');
    expect(backup).not.toContain('6 times 7');
    expect(backup).not.toContain('Forty-two');

    await page.goBack();
    await expect(page).toHaveURL(/#\/temporary$/);
    await expect(chat.userMessages()).toHaveText([QUESTION]);
    await expect(page.getByTestId('temporary-badge')).toBeVisible();
  });

  test('"Save this chat" keeps it, with its branches, as a normal chat across a reload', async ({ page, chat }) => {
    await chat.temporaryChat();
    await chat.send('first question');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await chat.editMessage(chat.userRows().last(), 'second question');
    await expect(chat.lastAnswer()).toContainText('You said: second question');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await expect(chat.branchLabel(chat.userRows().last())).toHaveText('2/2');
    expect(await tablesHolding(page, 'question')).toEqual([]);

    await page.getByRole('button', { name: 'Save this chat' }).click();

    await expect(page).toHaveURL(/#\/chat\/.+/);
    await expect(page.getByTestId('temporary-badge')).toHaveCount(0);
    await expect(chat.sessionLinks()).toHaveCount(1);
    // Saved: leaving it no longer asks anything.
    expect(await reloadAsAPerson(page)).toEqual([]);
    await expect(chat.userMessages()).toHaveText(['second question']);
    await expect(chat.branchLabel(chat.userRows().last())).toHaveText('2/2');
    await chat.previousBranch(chat.userRows().last());
    await expect(chat.userMessages()).toHaveText(['first question']);
    await expect(chat.lastAnswer()).toContainText('You said: first question');
    // Its title may quote the question too: the messages are what must be there.
    expect(await tablesHolding(page, 'You said: first question')).toContain('messages');
  });

  test('"Save this chat" keeps its attachment, held in memory until then', async ({ page, chat }) => {
    await chat.temporaryChat();
    await page.getByLabel('Attach files to the message').setInputFiles({ name: 'kettle.txt', mimeType: 'text/plain', buffer: Buffer.from('The copper kettle is on.') });
    await expect(page.getByTestId('attachment-chip')).toHaveAttribute('data-status', 'ready');
    await chat.send('what does the note say');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    // Nothing of it, not even the attached file, reached the database yet.
    expect(await tablesHolding(page, 'copper kettle')).toEqual([]);

    await page.getByRole('button', { name: 'Save this chat' }).click();

    await expect(page).toHaveURL(/#\/chat\/.+/);
    await page.reload();
    await expect(chat.userMessages()).toHaveText(['what does the note say']);
    await page.getByTestId('message-attachment').filter({ hasText: 'kettle.txt' }).click();
    await expect(page.getByTestId('file-viewer')).toContainText('The copper kettle is on.');
    expect(await tablesHolding(page, 'copper kettle')).toEqual(expect.arrayContaining(['files']));
  });

  test('started from a project, it answers with the project\'s instructions and files, and writes nothing to the project', async ({ page, chat, llm }) => {
    const project = new ProjectPage(page);
    await project.create('Shop');
    await project.setInstructions('Answer as the shop keeper of Lyon.');
    await expect(project.settingsForm().getByText('Saved')).toBeVisible();
    await project.upload(['test/fixtures/documents/inventory.csv']);
    await expect(project.files().filter({ hasText: 'inventory.csv' })).toHaveAttribute('data-status', 'ready');

    await page.keyboard.press('Control+Shift+E');
    await expect(page.getByTestId('temporary-badge')).toBeVisible();
    // The composer says which project the chat starts in.
    await expect(page.getByTestId('new-chat-project')).toContainText('New chat in Shop');
    llm.setScenario({ kind: 'text', text: 'We have fourteen copper kettles.' });
    await chat.send('How many copper kettles are in stock?');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    const body = JSON.stringify(llm.requests().find((r) => !r.isPreflight && r.path.endsWith('/chat/completions'))?.body);
    expect(body).toContain('Answer as the shop keeper of Lyon.');
    expect(body).toContain('Copper kettle');
    expect(await tablesHolding(page, 'How many copper kettles')).toEqual([]);
    expect(await tablesHolding(page, 'fourteen copper kettles')).toEqual([]);
    // Neither the sidebar (its one link is the project's) nor the project lists it.
    await expect(chat.sessionLinks()).toHaveText(['Shop']);
    page.on('dialog', (dialog) => void dialog.accept());
    await chat.sessionLinks().click();
    await expect(page.getByText('No chats in this project yet.')).toBeVisible();
  });
});
