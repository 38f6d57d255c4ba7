import { expect, test } from './fixtures';

test.describe('usage screen', () => {
  test('after two answers it shows their tokens and cost, per chat and per provider, and draws the chart', async ({ seed, page, chat, llm }) => {
    await seed.provider({ kind: 'openai', name: 'Mock OpenAI', baseUrl: `${llm.url}/v1`, apiKey: 'sk-usage-key', model: 'gpt-4o-mini' }, { open: '/#/settings' });

    // gpt-4o-mini: $0.15 input, $0.075 cached input, $0.60 output per million tokens.
    // First: 600 × 0.15 + 400 × 0.075 + 500 × 0.6 = $0.00042; second: 2000 × 0.15 + 1000 × 0.6 = $0.0009.
    llm.queueScenarios({ kind: 'text', text: 'First answer.', usage: { inputTokens: 1000, cachedInputTokens: 400, outputTokens: 500 } });
    await chat.newChat();
    await chat.send('first question');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    // The default reply, not a queued one: the chat's title request may come after the first answer.
    llm.setScenario({ kind: 'text', text: 'Second answer.', usage: { inputTokens: 2000, outputTokens: 1000, reasoningTokens: 200 } });
    await chat.send('second question');
    await expect(chat.answers()).toHaveCount(2);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await expect(chat.lastAnswer().getByTestId('answer-usage')).toHaveAttribute('aria-label', /2,000 in · 1,000 out · 200 reasoning/);

    await page.getByRole('link', { name: 'Usage' }).click();
    const totals = page.getByTestId('usage-totals');
    await expect(totals).toContainText('Answers2');
    await expect(totals).toContainText('Tokens4,500');
    await expect(totals).toContainText('Input3,000');
    await expect(totals).toContainText('Cached input400');
    await expect(totals).toContainText('Output1,500');
    await expect(totals).toContainText('Reasoning200');
    await expect(totals).toContainText('Cost$0.0013');

    // The chart is a real canvas drawn by uPlot, with the table as its accessible fallback.
    const chart = page.getByTestId('usage-chart');
    await expect(chart.locator('canvas')).toHaveCount(1);
    const isDrawn = await chart.locator('canvas').evaluate((canvas: HTMLCanvasElement) => {
      const context = canvas.getContext('2d');
      if (!context || canvas.width === 0) return false;
      const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] ?? 0) > 0) return true;
      return false;
    });
    expect(isDrawn).toBe(true);
    const today = page.getByTestId('usage-table').getByRole('row').nth(1);
    await expect(today.getByRole('cell')).toHaveText(['2', '3,000', '400', '1,500', '200', '$0.0013']);

    await page.getByRole('radio', { name: 'Per provider' }).check();
    await expect(page.getByTestId('usage-table').getByRole('row').nth(1).getByRole('rowheader')).toHaveText('Mock OpenAI');
    const chatRow = page.getByTestId('usage-by-chat').getByRole('row').nth(1);
    await expect(chatRow.getByRole('cell').first()).toHaveText('2');
    await expect(page.getByTestId('usage-by-project').getByRole('row').nth(1).getByRole('rowheader')).toHaveText('No project');
    await page.screenshot({ path: 'test-results/screenshots/usage-wide.png' });
  });
});
