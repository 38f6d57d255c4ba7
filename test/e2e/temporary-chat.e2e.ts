import { expect, test } from './fixtures';
import { placesHolding, readStoredText } from './support/stored-text';

const QUESTION = 'Keep this between us: what is 6 times 7?';
const REPLY = 'Forty-two, and nobody else will read this temporary answer.';

test.describe('a temporary chat', () => {
  test.beforeEach(async ({ settings, llm }) => {
    await settings.open();
    await settings.addProvider({ name: 'Mock OpenAI', baseUrl: `${llm.url}/v1`, apiKey: 'sk-e2e-temporary', model: 'gpt-4o-mini' });
  });

  test('streams an answer, leaves nothing in IndexedDB, and is gone after a reload', async ({ page, chat, llm }) => {
    llm.queueScenarios({ kind: 'text', text: REPLY, chunkSize: 6, tokensPerSecond: 20 }, { kind: 'text', text: 'A title' });
    await chat.temporaryChat();
    await expect(page).toHaveURL(/#\/temporary$/);
    await expect(page.getByTestId('temporary-badge')).toBeVisible();
    await expect(page.getByTestId('composer-temporary')).toContainText('not saved');

    await chat.send(QUESTION);
    await expect(chat.lastAnswer()).toContainText(REPLY);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    // Never in the address, the sidebar, or any table of the database.
    await expect(page).toHaveURL(/#\/temporary$/);
    await expect(chat.sessionLinks()).toHaveCount(0);
    const stored = await readStoredText(page);
    expect(placesHolding(stored.tables, '6 times 7')).toEqual([]);
    expect(placesHolding(stored.tables, 'Forty-two')).toEqual([]);
    expect(stored.tables['sessions']).toBe('');

    // The browser asks before the reload loses it; once accepted, the chat is gone.
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.type());
      void dialog.accept();
    });
    // Reloaded from the page itself, as a person's F5 would be (Playwright's own reload skips
    // the beforeunload step).
    const loaded = page.waitForEvent('load');
    await page.evaluate(() => void setTimeout(() => location.reload(), 0));
    await loaded;
    expect(dialogs).toEqual(['beforeunload']);
    await expect(page.getByTestId('temporary-badge')).toBeVisible();
    await expect(chat.userMessages()).toHaveCount(0);
    await expect(page.getByText(REPLY)).toHaveCount(0);
  });

  test('"Save this chat" keeps it as a normal chat across a reload', async ({ page, chat, llm }) => {
    llm.queueScenarios({ kind: 'text', text: REPLY }, { kind: 'text', text: 'Six times seven' });
    await chat.temporaryChat();
    await chat.send(QUESTION);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    await page.getByRole('button', { name: 'Save this chat' }).click();

    await expect(page).toHaveURL(/#\/chat\/.+/);
    await expect(page.getByTestId('temporary-badge')).toHaveCount(0);
    await expect(chat.sessionLinks()).toHaveCount(1);
    await page.reload();
    await expect(chat.userMessages()).toHaveText([QUESTION]);
    await expect(chat.lastAnswer()).toContainText(REPLY);
    await expect(chat.sessionLinks()).toHaveCount(1);
    expect(placesHolding((await readStoredText(page)).tables, 'Forty-two')).toEqual(['messages']);
  });
});
