import { expect, test } from './fixtures';
import type { MockLlm } from '../mock-llm/server';
import type { RecordedRequest } from '../mock-llm/recorder';

interface ProviderCase {
  label: string;
  kind: 'openai' | 'anthropic' | 'google';
  basePath: string;
  model: string;
  /** The mock's provider name in recorded requests. */
  recorded: 'openai' | 'anthropic' | 'gemini';
  listedModels: string[];
}

const CASES: ProviderCase[] = [
  {
    label: 'OpenAI',
    kind: 'openai',
    basePath: '/v1',
    model: 'gpt-4o-mini',
    recorded: 'openai',
    listedModels: ['gpt-4o-mini', 'gpt-4.1', 'o4-mini'],
  },
  {
    label: 'Anthropic',
    kind: 'anthropic',
    basePath: '/v1',
    model: 'claude-sonnet-4-5-20250929',
    recorded: 'anthropic',
    listedModels: ['claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001'],
  },
  {
    label: 'Gemini',
    kind: 'google',
    basePath: '/v1beta',
    model: 'gemini-2.5-flash',
    recorded: 'gemini',
    listedModels: ['gemini-2.5-flash', 'gemini-2.5-pro'],
  },
];

const GOOD_KEY = 'test-e2e-key';

function isGeneration(provider: ProviderCase['recorded']) {
  return (request: RecordedRequest): boolean =>
    request.provider === provider && !request.isPreflight && request.method === 'POST';
}

function generations(llm: MockLlm, provider: ProviderCase['recorded']): RecordedRequest[] {
  return llm.requests().filter(isGeneration(provider));
}

for (const provider of CASES) {
  test.describe(`${provider.label} from the browser`, () => {
    test.beforeEach(async ({ settings }) => {
      await settings.open();
    });

    test('streams an answer', async ({ settings, chat, llm }) => {
      await settings.addProvider({
        kind: provider.kind,
        name: `Mock ${provider.label}`,
        baseUrl: `${llm.url}${provider.basePath}`,
        apiKey: GOOD_KEY,
        model: provider.model,
      });
      const reply = `Hello from ${provider.label}, streamed in small pieces so the page shows it growing.`;
      llm.queueScenarios({ kind: 'text', text: reply, chunkSize: 6, tokensPerSecond: 30 });

      await chat.newChat();
      await chat.send('hello');
      await expect(chat.lastAnswer()).toContainText(`Hello from ${provider.label}`);
      await expect(chat.lastAnswer()).toContainText(reply);
      await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

      const request = await llm.waitForRequest(isGeneration(provider.recorded));
      if (provider.kind === 'anthropic') {
        expect(request.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
        expect(request.headers['x-api-key']).toBe(GOOD_KEY);
      }
    });

    test('runs a tool call round trip, an unknown tool included', async ({ settings, chat, llm }) => {
      await settings.addProvider({
        kind: provider.kind,
        name: `Mock ${provider.label}`,
        baseUrl: `${llm.url}${provider.basePath}`,
        apiKey: GOOD_KEY,
        model: provider.model,
      });
      const pageUrl = `${llm.url}/web/pages/llamas`;
      llm.queueScenarios(
        {
          kind: 'tool-calls',
          calls: [
            { name: 'open_url', arguments: { urls: [pageUrl] } },
            { name: 'no_such_tool', arguments: { anything: 1 } },
          ],
        },
        { kind: 'text', text: 'The tools have answered; here is my reply.' },
      );

      await chat.newChat();
      await chat.send('use your tools');
      const answer = chat.lastAnswer();
      await expect(answer).toContainText('here is my reply');
      await expect(answer).toHaveAttribute('data-status', 'complete');

      const openUrl = answer.locator('[data-testid="tool-block"][data-tool="open_url"]');
      await expect(openUrl).toHaveCount(1);
      const unknown = answer.locator('[data-testid="tool-block"][data-tool="no_such_tool"]');
      await expect(unknown).toHaveAttribute('data-status', 'error');
      await unknown.locator('summary').click();
      await expect(unknown).toContainText('no_such_tool');

      // The second request carries both tool results back to the model.
      await expect.poll(() => generations(llm, provider.recorded).length).toBeGreaterThanOrEqual(2);
      const followUp = JSON.stringify(generations(llm, provider.recorded)[1]?.body);
      expect(followUp).toContain('no_such_tool');
      expect(followUp).toContain('open_url');
    });

    test('shows the provider’s refusal of an invalid key', async ({ settings, chat, llm }) => {
      await settings.addProvider({
        kind: provider.kind,
        name: `Mock ${provider.label}`,
        baseUrl: `${llm.url}${provider.basePath}`,
        apiKey: 'bad-key',
        model: provider.model,
      });
      await chat.newChat();
      await chat.send('hello');
      await expect(chat.lastAnswer().getByTestId('answer-error')).toContainText('rejected the API key');
      await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'error');

      // The same error shows on Test connection.
      await settings.open();
      await settings.testConnection(`Mock ${provider.label}`);
      await expect(settings.providerCard(`Mock ${provider.label}`).getByTestId('provider-test-error')).toContainText(
        'rejected the API key',
      );
    });

    test('Test connection lists the models to pick from', async ({ settings, llm, page }) => {
      const name = `Mock ${provider.label}`;
      await settings.addProvider({
        kind: provider.kind,
        name,
        baseUrl: `${llm.url}${provider.basePath}`,
        apiKey: GOOD_KEY,
        model: provider.model,
      });
      await settings.testConnection(name);
      const listed = settings.providerCard(name).getByTestId('listed-models');
      for (const model of provider.listedModels) await expect(listed.getByLabel(model)).toBeVisible();
      const extra = provider.listedModels[1] ?? '';
      await listed.getByLabel(extra).check();
      await listed.getByRole('button', { name: 'Use selected models' }).click();
      await expect(settings.providerCard(name).getByTestId('enabled-model')).toHaveCount(2);
      await expect(settings.providerCard(name).getByTestId('enabled-model').nth(1)).toContainText(extra);
      // Saved in IndexedDB: still there after a reload.
      await page.reload();
      await expect(settings.providerCard(name).getByTestId('enabled-model')).toHaveCount(2);
    });
  });
}

test('an unknown model carries a visible estimate note, and its context window can be set', async ({ settings, llm }) => {
  await settings.open();
  await settings.addProvider({ name: 'Local', baseUrl: `${llm.url}/v1`, apiKey: '', model: 'my-own-model' });
  const card = settings.providerCard('Local');
  await expect(card.getByTestId('estimate-note')).toBeVisible();
  await card.getByLabel('Context window for my-own-model').fill('32768');
  await card.getByRole('button', { name: 'Set', exact: true }).click();
  await expect(card.getByTestId('enabled-model')).toContainText('32,768 tokens');
  // The key is never shown in full.
  await expect(card.getByTestId('masked-key')).toHaveText('no key');
});

test('keys are kept in IndexedDB, never in localStorage, and shown masked', async ({ settings, llm, page }) => {
  await settings.open();
  const key = 'sk-e2e-secret-key-0123456789';
  await settings.addProvider({ kind: 'openai', name: 'Masked', baseUrl: `${llm.url}/v1`, apiKey: key, model: 'gpt-4o-mini' });
  await expect(settings.providerCard('Masked').getByTestId('masked-key')).toHaveText('sk-e••••6789');
  await expect(page.getByText(key)).toHaveCount(0);
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  expect(stored).not.toContain(key);
});
