import { expect, test } from './fixtures';
import { InspectorPage } from './pages/inspector-page';
import { ShellPage } from './pages/shell-page';

test.describe('compaction of long chats', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  });

  test('Compact now sends a summary in place of the oldest turns, keeps every message, and Undo compaction brings them back', async ({ page, chat, llm }) => {
    const shell = new ShellPage(page);
    const inspector = new InspectorPage(page);
    await shell.openPanel();
    for (const city of ['Paris', 'Rome', 'Madrid']) {
      await chat.send(`What is the capital of the country whose capital is ${city}?`);
      await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    }
    await expect(chat.userMessages()).toHaveCount(3);
    const title = (await shell.sidebar.getByTestId('session-row').first().getByRole('link').innerText()).trim();

    // The summary model (the chat's own here) answers the summary request.
    llm.setScenario({ kind: 'text', text: 'The user asked about the capitals Paris and Rome.' });
    await shell.sessionAction(title, 'Compact now');
    await expect(shell.toast(/Compacted: 4 earlier messages/)).toBeVisible();
    const request = await llm.waitForRequest((recorded) => JSON.stringify(recorded.body ?? '').includes('You compact long conversations'));
    expect(JSON.stringify(request.body)).toContain('User: What is the capital of the country whose capital is Paris?');
    expect(JSON.stringify(request.body)).not.toContain('Madrid');

    // The next request: the summary first, then the newest turn verbatim and the draft.
    await chat.composer.fill('And Madrid?');
    await expect.poll(() => inspector.kinds()).toEqual(['S', 'SUM', 'U', 'A', 'U']);
    const summary = inspector.messages().nth(1);
    await summary.getByText(/stands for 4 earlier messages/).click();
    await expect(summary).toContainText('The user asked about the capitals Paris and Rome.');
    await expect(summary.getByTestId('summary-covers').locator('p')).toHaveCount(4);
    await expect(summary.getByTestId('summary-covers')).toContainText('capital is Paris');
    // Nothing is deleted: the chat still shows every message.
    await expect(chat.userMessages()).toHaveCount(3);
    await expect(chat.answers()).toHaveCount(3);

    await shell.sessionAction(title, 'Undo compaction');
    await expect(shell.toast(/Compaction undone/)).toBeVisible();
    await expect.poll(() => inspector.kinds()).toEqual(['S', 'U', 'A', 'U', 'A', 'U', 'A', 'U']);
    await expect(chat.userMessages()).toHaveCount(3);
  });

  test('the model picked in Settings writes the summary, and the choice survives a reload', async ({ page, chat, llm, settings }) => {
    await settings.open();
    await settings.addProvider({ name: 'Summaries', baseUrl: `${llm.url}/v1`, apiKey: 'sk-summaries', model: 'gpt-4.1-nano' });
    const picker = page.getByLabel('Model that summarises long chats');
    await picker.selectOption({ label: 'gpt-4.1-nano · Summaries' });
    await page.reload();
    await expect(page.getByLabel('Model that summarises long chats')).toHaveValue(/gpt-4\.1-nano$/);

    const shell = new ShellPage(page);
    await chat.newChat();
    for (const city of ['Lisbon', 'Oslo', 'Vienna']) {
      await chat.send(`Tell me about ${city}.`);
      await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    }
    const title = (await shell.sidebar.getByTestId('session-row').first().getByRole('link').innerText()).trim();
    llm.setScenario({ kind: 'text', text: 'The user asked about Lisbon.' });
    await shell.sessionAction(title, 'Compact now');
    await expect(shell.toast(/Compacted/)).toBeVisible();
    const request = await llm.waitForRequest((recorded) => JSON.stringify(recorded.body ?? '').includes('You compact long conversations'));
    expect((request.body as { model?: string }).model).toBe('gpt-4.1-nano');
    expect(request.headers.authorization).toBe('Bearer sk-summaries');
  });
});
