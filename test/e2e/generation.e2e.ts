import { expect, test } from './fixtures';
import { AgentsPage } from './pages/agents-page';
import { InspectorPage } from './pages/inspector-page';
import { ShellPage } from './pages/shell-page';

/**
 * Generation settings per agent and per chat, the cache-friendly context order, and the cached
 * input tokens the provider reports, as a person sets and sees them.
 */

const KEY = 'test-e2e-generation';
const MODEL = 'claude-sonnet-4-5-20250929';

type AnthropicBody = {
  temperature?: number;
  max_tokens?: number;
  system?: Array<{ text: string; cache_control?: unknown }>;
  messages: Array<{ role: string; content: Array<{ type: string; text?: string; cache_control?: unknown }> }>;
};

test.beforeEach(async ({ seed, llm }) => {
  await seed.provider({ kind: 'anthropic', name: 'Claude', baseUrl: `${llm.url}/v1`, apiKey: KEY, model: MODEL }, { open: '/#/settings' });
});

test("an agent's generation settings and cache-friendly order shape the request", async ({ page, chat, llm }) => {
  const agents = new AgentsPage(page);
  await agents.open();
  await page.getByRole('button', { name: 'New agent' }).click();
  await expect(page.getByTestId('context-order-tradeoff')).toContainText('bill those input tokens at a fraction of the price');
  await agents.fill('New agent', {
    name: 'Careful',
    prompt: 'Answer carefully.',
    generation: { 'Temperature (0–2)': '0.4', 'Longest answer (tokens)': '900' },
    isCacheFriendly: true,
  });

  llm.setScenario({ kind: 'text', text: 'Careful answer.' });
  await chat.newChat();
  await chat.agentPicker().selectOption({ label: 'Careful' });
  llm.clearRequests();
  await chat.send('First question');
  await expect(chat.lastAnswer()).toContainText('Careful answer.');
  const body = (await llm.waitForRequest()).body as AnthropicBody;
  expect(body.temperature).toBe(0.4);
  expect(body.max_tokens).toBe(900);
  expect(body.system?.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
  // Cache-friendly: the agent prompt opens the conversation, marked as the end of the stable head.
  const opening = body.messages[0]?.content[0];
  expect(opening?.text).toBe('Answer carefully.');
  expect(opening?.cache_control).toEqual({ type: 'ephemeral' });
});

test("a chat's own generation settings go over its agent's, stay with the chat, and can be let go", async ({
  page,
  chat,
  llm,
}) => {
  llm.setScenario({ kind: 'text', text: 'An answer.' });
  await chat.newChat();
  await chat.send('First question');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

  await page.getByRole('button', { name: 'Generation settings', exact: true }).click();
  const dialog = page.getByTestId('chat-generation');
  await expect(dialog.getByLabel('Temperature (0–2)')).toHaveAttribute('placeholder', "Empty: the agent's");
  await dialog.getByLabel('Temperature (0–2)').fill('3');
  await expect(dialog.getByText('Temperature is a number from 0 to 2')).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Save' })).toBeDisabled();
  await dialog.getByLabel('Temperature (0–2)').fill('0.9');
  await dialog.getByLabel('Longest answer (tokens)').fill('500');
  await dialog.getByRole('button', { name: 'Save' }).click();
  const overridden = page.getByRole('button', { name: 'Generation settings (this chat has its own)' });
  await expect(overridden).toBeVisible();

  llm.clearRequests();
  await chat.send('Second question');
  await expect(chat.answers()).toHaveCount(2);
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
  const second = (await llm.waitForRequest()).body as AnthropicBody;
  expect(second.temperature).toBe(0.9);
  expect(second.max_tokens).toBe(500);

  // Stored with the chat; "Use the agent's settings" lets go of it.
  await page.reload();
  await overridden.click();
  await expect(dialog.getByLabel('Temperature (0–2)')).toHaveValue('0.9');
  await dialog.getByRole('button', { name: "Use the agent's settings" }).click();
  await expect(page.getByRole('button', { name: 'Generation settings', exact: true })).toBeVisible();
  llm.clearRequests();
  await chat.send('Third question');
  await expect(chat.answers()).toHaveCount(3);
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
  expect((await llm.waitForRequest()).body).not.toHaveProperty('temperature');
});

test('cached input tokens show in the answer details and in the inspector', async ({ page, chat, llm }) => {
  llm.setScenario({
    kind: 'text',
    text: 'Served partly from the cache.',
    usage: { inputTokens: 5_000, outputTokens: 40, cachedInputTokens: 3_072 },
  });
  await chat.newChat();
  await chat.send('Tell me something');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
  await expect(chat.lastAnswer().getByTestId('answer-usage')).toHaveAttribute('aria-label', /5,000 in · 3,072 cached · 40 out/);

  const inspector = new InspectorPage(page);
  await new ShellPage(page).openPanel();
  await expect(inspector.root.getByTestId('inspector-cached')).toContainText('3,072 of 5,000 input tokens (61%)');
  await inspector.show('Last request');
  await expect(inspector.root.getByTestId('inspector-cached')).toContainText('3,072 of 5,000 input tokens (61%)');
  // The system prompt and the question end the request's stable prefixes.
  await expect(inspector.root.getByTestId('cache-prefix-end')).toHaveCount(2);
});
