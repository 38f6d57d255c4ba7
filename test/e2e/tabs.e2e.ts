import { expect, test } from './fixtures';
import type { BrowserContext, Page } from '@playwright/test';
import { ChatPage } from './pages/chat-page';
import { ShellPage } from './pages/shell-page';
import type { MockLlm } from '../mock-llm/server';

/** The same chat in a second tab. */
async function openInSecondTab(context: BrowserContext, first: Page): Promise<ChatPage> {
  const other = new ChatPage(await context.newPage());
  await other.page.goto(first.url());
  return other;
}

/** A new chat whose answer streams `text` and then goes silent, answering until stopped. */
async function startEndlessAnswer(chat: ChatPage, llm: MockLlm, question: string, text: string): Promise<void> {
  llm.setScenario({ kind: 'hang', text });
  await chat.newChat();
  await chat.send(question);
  await expect(chat.lastAnswer()).toContainText(text);
  await expect(chat.page).toHaveURL(/#\/chat\/.+/);
}

/** Two tabs of the same browser: same origin, same IndexedDB, same Web Locks. */
test.describe('two tabs on one chat', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.provider({ name: 'Mock', baseUrl: `${llm.url}/v1`, apiKey: 'sk-tabs-e2e', model: 'gpt-4o-mini' }, { open: '/#/settings' });
  });

  test('a send refused because another tab is answering keeps the text and the files, and says why', async ({
    page,
    context,
    chat,
    llm,
  }) => {
    await startEndlessAnswer(chat, llm, 'first question', 'Still thinking about it');
    const other = await openInSecondTab(context, page);
    await expect(other.userMessages()).toHaveText(['first question']);
    await other.page
      .getByLabel('Attach files to the message')
      .setInputFiles([{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Tide tables for the harbour.') }]);
    const chip = other.page.getByTestId('attachment-chip');
    await expect(chip).toHaveAttribute('data-status', 'ready', { timeout: 30_000 });
    await other.send('second question');

    await expect(other.page.getByTestId('chat-error')).toContainText('This chat is answering in another tab.');
    await expect(other.composer).toHaveValue('second question');
    await expect(chip).toContainText('notes.txt');
    await expect(other.userMessages()).toHaveText(['first question']);

    // Once the first tab is done, the same send goes through and only then empties the composer.
    await chat.stop();
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'stopped');
    llm.setScenario({ kind: 'text', text: 'Here is the second answer.' });
    await other.page.getByRole('button', { name: 'Send' }).click();
    await expect(other.lastAnswer()).toContainText('Here is the second answer.');
    await expect(other.composer).toHaveValue('');
    await expect(chip).toHaveCount(0);
  });

  test('an answer streaming in one tab streams live in the other, then both show the saved answer once', async ({
    page,
    context,
    chat,
    llm,
  }) => {
    llm.setScenario({ kind: 'text', text: 'Hello there.' });
    await chat.newChat();
    await chat.send('first question');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    const other = await openInSecondTab(context, page);
    await expect(other.answers().getByTestId('answer-text')).toHaveText(['Hello there.']);

    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    // About 38 pieces at 3 a second: the answer grows for about 13 s, long enough for a loaded
    // machine's other tab to draw it part-way (at 8 a second, 5 s, it once went straight to
    // the whole answer at a load of 11).
    llm.setScenario({ kind: 'text', text: words, chunkSize: 4, tokensPerSecond: 3 });
    await chat.send('second question');
    // The other tab shows the new question, then the answer growing while it streams there.
    await expect(other.userMessages()).toHaveText(['first question', 'second question']);
    await expect(other.lastAnswer()).toHaveAttribute('data-status', 'streaming');
    // Part of the answer, before the rest: checked on every frame.
    await other.page.waitForFunction(
      () => {
        const text = [...document.querySelectorAll('[data-testid="answer-text"]')].at(-1)?.textContent ?? '';
        return text.includes('w3 ') && !text.includes('w39');
      },
      undefined,
      { timeout: 30_000, polling: 'raf' },
    );
    await expect(other.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await expect(other.answers()).toHaveCount(2);
    await expect(other.lastAnswer().getByTestId('answer-text')).toHaveText(words);
    await expect(chat.lastAnswer().getByTestId('answer-text')).toHaveText(words);
  });

  test('a tab that opens the chat mid-stream shows the answer so far once, and no longer answers once it stopped there', async ({
    page,
    context,
    chat,
    llm,
  }) => {
    await startEndlessAnswer(chat, llm, 'write a long essay', 'The first part of a long answer');
    const other = await openInSecondTab(context, page);
    await expect(other.lastAnswer()).toHaveAttribute('data-status', 'streaming');
    await expect(other.lastAnswer().getByTestId('answer-text')).toHaveText('The first part of a long answer');

    await chat.stop();
    await expect(other.lastAnswer()).toHaveAttribute('data-status', 'stopped');
    await expect(other.answers()).toHaveCount(1);
    await expect(other.lastAnswer().getByTestId('answer-text')).toHaveText('The first part of a long answer');
  });

  test('a tab closed mid-stream leaves the other tab an interrupted answer, not one answering forever', async ({
    page,
    context,
    chat,
    llm,
  }) => {
    await startEndlessAnswer(chat, llm, 'tell me a story', 'Halfway through');
    const other = await openInSecondTab(context, page);
    await expect(other.lastAnswer()).toHaveAttribute('data-status', 'streaming');
    // The second tab's worker is up and did its start-up check (the chat was held then).
    await expect(other.page.getByTestId('context-tokens')).toHaveText(/\d/);
    await page.close();
    await expect(other.lastAnswer()).toHaveAttribute('data-status', 'interrupted');
    await expect(other.lastAnswer().getByRole('button', { name: 'Retry' })).toBeVisible();
  });

  test('a rename in one tab shows in the other; deleting a chat that is answering stops its request', async ({
    page,
    context,
    chat,
    llm,
  }) => {
    llm.setScenario({ kind: 'text', text: 'Noted.' });
    await chat.newChat();
    await chat.send('plan the garden');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    const other = await openInSecondTab(context, page);
    const otherShell = new ShellPage(other.page);
    await expect(other.answers().getByTestId('answer-text')).toHaveText(['Noted.']);

    // The model names the chat after its first answer.
    const shell = new ShellPage(page);
    await expect(shell.sidebar.getByRole('link', { name: 'Noted' })).toBeVisible();
    await shell.rename('Noted', 'Garden plan');
    await expect(other.page.getByTestId('screen-title')).toHaveText('Garden plan');

    llm.setScenario({ kind: 'hang', text: 'Start with the soil' });
    await chat.send('what first?');
    await expect(other.lastAnswer()).toContainText('Start with the soil');
    await otherShell.sessionAction('Garden plan', 'Delete');
    await llm.waitForClosed();
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'stopped');
  });
});
