import { expect, test } from './fixtures';
import { ChatPage } from './pages/chat-page';

/** Two tabs of the same browser: same origin, same IndexedDB, same Web Locks. */
test.describe('two tabs on one chat', () => {
  test.beforeEach(async ({ settings, llm }) => {
    await settings.open();
    await settings.addProvider({ name: 'Mock', baseUrl: `${llm.url}/v1`, apiKey: 'sk-tabs-e2e', model: 'gpt-4o-mini' });
  });

  test('a send refused because another tab is answering keeps the text and the files, and says why', async ({
    page,
    context,
    chat,
    llm,
  }) => {
    llm.setScenario({ kind: 'hang', text: 'Still thinking about it' });
    await chat.newChat();
    await chat.send('first question');
    await expect(chat.lastAnswer()).toContainText('Still thinking');
    await expect(page).toHaveURL(/#\/chat\/.+/);

    const other = new ChatPage(await context.newPage());
    await other.page.goto(page.url());
    await expect(other.userMessages()).toHaveText(['first question']);
    await other.page
      .getByLabel('Attach files to the message')
      .setInputFiles([{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Tide tables for the harbour.') }]);
    const chip = other.page.getByTestId('attachment-chip');
    await expect(chip).toHaveAttribute('data-status', 'ready', { timeout: 10_000 });
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
});
