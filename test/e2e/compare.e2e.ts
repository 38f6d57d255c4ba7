import { expect, test } from './fixtures';

test.describe('compare mode', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.providers([{ name: 'Mock A', baseUrl: `${llm.url}/v1`, apiKey: 'sk-compare-a', model: 'model-alpha' }, { name: 'Mock B', baseUrl: `${llm.url}/v1`, apiKey: 'sk-compare-b', model: 'model-beta' }], { open: '/#/settings' });
  });

  test('two models answer side by side; one fails on its own; continuing picks the other', async ({ page, chat, llm }) => {
    llm.queueScenarios(
      { kind: 'text', text: 'The working model answers in full.', chunkSize: 6, tokensPerSecond: 40 },
      {
        kind: 'http-error',
        status: 400,
        body: JSON.stringify({ error: { message: 'The mock refused this model.', type: 'invalid_request_error' } }),
      },
    );
    await chat.newChat();
    await chat.addCompareModel();
    await chat.send('compare yourselves');

    await expect(chat.compareView()).toBeVisible();
    await expect(chat.compareColumns()).toHaveCount(2);
    const answers = chat.compareView().getByTestId('assistant-message');
    await expect(answers.filter({ hasText: 'The working model answers in full.' })).toHaveAttribute('data-status', 'complete');
    await expect(chat.compareView().locator('[data-testid="assistant-message"][data-status="error"]')).toHaveCount(1);
    await expect(chat.compareView().getByTestId('answer-error')).toBeVisible();
    await expect(chat.compareView()).toHaveAttribute('data-live', 'false');
    await page.screenshot({ path: 'test-results/screenshots/compare-light-wide.png' });

    // Narrow: tabs, one answer at a time.
    await page.setViewportSize({ width: 390, height: 844 });
    const tabs = chat.compareView().getByRole('tab');
    await expect(tabs).toHaveCount(2);
    await tabs.nth(1).click();
    await expect(tabs.nth(1)).toHaveAttribute('aria-selected', 'true');
    await page.screenshot({ path: 'test-results/screenshots/compare-light-narrow.png' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: 'test-results/screenshots/compare-dark-narrow.png' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: 'test-results/screenshots/compare-dark-wide.png' });
    await page.emulateMedia({ colorScheme: 'light' });

    const working = chat.compareColumns().filter({ hasText: 'The working model answers in full.' });
    await working.getByRole('button', { name: 'Continue with this answer' }).click();
    await expect(chat.compareView()).toHaveCount(0);
    await expect(chat.answers()).toHaveCount(1);
    await expect(chat.lastAnswer()).toContainText('The working model answers in full.');

    // The next question (one model again) continues from the chosen answer.
    await page.getByRole('button', { name: /from the comparison/ }).click();
    await chat.send('and then?');
    await expect(chat.answers()).toHaveCount(2);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    const last = llm
      .requests()
      .filter((r) => r.path.endsWith('/chat/completions') && !r.isPreflight)
      .at(-1);
    const body = JSON.stringify(last?.body);
    expect(body).toContain('The working model answers in full.');
  });
  test('stopping one model leaves the other answering', async ({ page, chat, llm }) => {
    llm.queueScenarios(
      { kind: 'hang', text: 'Still thinking about it' },
      { kind: 'hang', text: 'Also thinking about it' },
    );
    await chat.newChat();
    await chat.addCompareModel();
    await chat.send('compare and stop');

    await expect(chat.compareColumns()).toHaveCount(2);
    const first = chat.compareColumns().filter({ hasText: 'Still thinking about it' });
    const second = chat.compareColumns().filter({ hasText: 'Also thinking about it' });
    await expect(first.getByRole('button', { name: /^Stop / })).toBeVisible();
    await expect(second.getByRole('button', { name: /^Stop / })).toBeVisible();
    await page.screenshot({ path: 'test-results/screenshots/compare-stop-light-wide.png' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: 'test-results/screenshots/compare-stop-dark-wide.png' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: 'test-results/screenshots/compare-stop-dark-narrow.png' });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.screenshot({ path: 'test-results/screenshots/compare-stop-light-narrow.png' });
    await page.setViewportSize({ width: 1280, height: 800 });

    await first.getByRole('button', { name: /^Stop / }).click();
    await expect(first.getByTestId('assistant-message')).toHaveAttribute('data-status', 'stopped');
    await expect(first.getByRole('button', { name: /^Stop / })).toHaveCount(0);
    // The other model is still streaming: only its own Stop (or the run's) ends it.
    await expect(second.getByTestId('assistant-message')).toHaveAttribute('data-status', 'streaming');
    await expect(chat.compareView()).toHaveAttribute('data-live', 'true');

    await second.getByRole('button', { name: /^Stop / }).click();
    await expect(chat.compareView()).toHaveAttribute('data-live', 'false');
    await expect(chat.compareView().locator('[data-testid="assistant-message"][data-status="stopped"]')).toHaveCount(2);
  });
});
