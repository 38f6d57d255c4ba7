import { expect, test } from './fixtures';

test.describe('branches', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.providers([{ name: 'Mock A', baseUrl: `${llm.url}/v1`, apiKey: 'sk-branches-a', model: 'model-alpha' }, { name: 'Mock B', baseUrl: `${llm.url}/v1`, apiKey: 'sk-branches-b', model: 'model-beta' }], { open: '/#/settings' });
  });

  test('editing a question makes a branch, and ‹ 1/2 › switches between them', async ({ page, chat }) => {
    await chat.newChat();
    await chat.send('what is one plus one');
    await expect(chat.lastAnswer()).toContainText('You said: what is one plus one');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    const question = chat.userRows().first();
    await chat.editMessage(question, 'what is two plus two');
    await expect(chat.lastAnswer()).toContainText('You said: what is two plus two');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await expect(chat.userMessages()).toHaveText(['what is two plus two']);
    await expect(chat.branchLabel(chat.userRows().first())).toHaveText('2/2');

    await chat.previousBranch(chat.userRows().first());
    await expect(chat.userMessages()).toHaveText(['what is one plus one']);
    await expect(chat.lastAnswer()).toContainText('You said: what is one plus one');
    await expect(chat.branchLabel(chat.userRows().first())).toHaveText('1/2');

    // The chosen branch is what the session shows after a reload.
    await page.reload();
    await expect(chat.userMessages()).toHaveText(['what is one plus one']);
    await chat.nextBranch(chat.userRows().first());
    await expect(chat.userMessages()).toHaveText(['what is two plus two']);
  });

  test('regenerating with another model adds a sibling answer from that model', async ({ chat, llm }) => {
    await chat.newChat();
    await chat.send('hello there');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await expect(chat.lastAnswer().getByTestId('answer-model')).toHaveText('model-alpha');

    // The default reply, not a queued one: the chat's title request may still arrive after the
    // first answer and would take a queued reply meant for the regeneration.
    llm.setScenario({ kind: 'text', text: 'A second opinion from beta.' });
    await chat.regenerateWith(chat.lastAnswer(), 'model-beta');
    await expect(chat.lastAnswer()).toContainText('A second opinion from beta.');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await expect(chat.lastAnswer().getByTestId('answer-model')).toHaveText('model-beta');
    await expect(chat.answers()).toHaveCount(1);
    await expect(chat.userMessages()).toHaveCount(1);
    await expect(chat.branchLabel(chat.lastAnswer())).toHaveText('2/2');

    const last = llm
      .requests()
      .filter((r) => r.path.endsWith('/chat/completions') && !r.isPreflight)
      .at(-1);
    expect((last?.body as { model: string }).model).toBe('model-beta');

    await chat.previousBranch(chat.lastAnswer());
    await expect(chat.lastAnswer().getByTestId('answer-model')).toHaveText('model-alpha');
    await expect(chat.branchLabel(chat.lastAnswer())).toHaveText('1/2');
  });
  test('deleting a question takes its answer along, and a deleted answer stays gone after a reload', async ({ page, chat }) => {
    await chat.newChat();
    await chat.send('first question');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await chat.send('second question');
    await expect(chat.lastAnswer()).toContainText('You said: second question');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    // The confirmation, in both themes and widths, before anything is deleted.
    await chat.userRows().last().getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByTestId('delete-message-dialog');
    await expect(dialog).toBeVisible();
    await page.screenshot({ path: 'test-results/screenshots/delete-message-light-wide.png' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: 'test-results/screenshots/delete-message-dark-wide.png' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: 'test-results/screenshots/delete-message-dark-narrow.png' });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.screenshot({ path: 'test-results/screenshots/delete-message-light-narrow.png' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(chat.userMessages()).toHaveText(['first question', 'second question']);

    await chat.deleteMessage(chat.userRows().last());
    await expect(chat.userMessages()).toHaveText(['first question']);
    await expect(chat.answers()).toHaveCount(1);
    await expect(chat.lastAnswer()).toContainText('You said: first question');

    // The conversation goes on from what is left.
    await chat.send('third question');
    await expect(chat.lastAnswer()).toContainText('You said: third question');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await chat.deleteMessage(chat.lastAnswer());
    await expect(chat.answers()).toHaveCount(1);
    await expect(chat.userMessages()).toHaveText(['first question', 'third question']);

    await page.reload();
    await expect(chat.userMessages()).toHaveText(['first question', 'third question']);
    await expect(chat.answers()).toHaveCount(1);
    await expect(chat.lastAnswer()).toContainText('You said: first question');
  });
});
