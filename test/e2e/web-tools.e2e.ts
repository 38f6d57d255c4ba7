import { expect, test } from './fixtures';
import { SettingsToolsPage } from './pages/settings-tools-page';

const API_KEY = 'sk-e2e-web-key';

test.describe('web tools and MCP servers', () => {
  test.beforeEach(async ({ seed, llm }) => {
    llm.web.clear();
    await seed.provider({ kind: 'openai', name: 'Mock OpenAI', baseUrl: `${llm.url}/v1`, apiKey: API_KEY, model: 'gpt-4o-mini' }, { open: '/#/settings' });
  });

  test('the model searches (SearXNG), opens two pages and answers citing them', async ({ page, chat, llm }) => {
    const tools = new SettingsToolsPage(page);
    await tools.configureWebTools({
      search: { kind: 'searxng', baseUrl: `${llm.url}/web/searxng` },
      shouldAllowPrivateNetwork: true,
    });
    await tools.webForm.getByRole('button', { name: 'Test search' }).click();
    await expect(page.getByTestId('search-test-result')).toContainText('The search works');

    const llamas = `${llm.url}/web/pages/llamas`;
    const alpacas = `${llm.url}/web/pages/alpacas`;
    llm.queueScenarios(
      { kind: 'tool-calls', calls: [{ name: 'web_search', arguments: { query: 'how long do llamas live' } }] },
      { kind: 'tool-calls', calls: [{ name: 'open_url', arguments: { urls: [llamas, alpacas] } }] },
      { kind: 'text', text: 'Llamas live 15 to 25 years [1]; alpacas about 20 [2].' },
    );
    await chat.newChat();
    await chat.send('How long do llamas and alpacas live?');

    const answer = chat.lastAnswer();
    await expect(answer).toHaveAttribute('data-status', 'complete', { timeout: 20_000 });
    await expect(answer.locator(`a.citation[href="${llamas}"]`)).toHaveText('1');
    await expect(answer.locator(`a.citation[href="${alpacas}"]`)).toHaveText('2');

    const search = answer.locator('[data-testid="tool-block"][data-tool="web_search"]');
    await expect(search).toHaveAttribute('data-status', 'complete');
    const opened = answer.locator('[data-testid="tool-block"][data-tool="open_url"]');
    await opened.locator('summary').click();
    await expect(opened).toContainText(llamas);
    await expect(opened).toContainText(alpacas);

    const fetched = llm.web.requests().map((request) => request.path);
    expect(fetched).toEqual(expect.arrayContaining(['/web/searxng/search', '/web/pages/llamas', '/web/pages/alpacas']));
  });

  test('Tavily works as the search service too', async ({ page, chat, llm }) => {
    const tools = new SettingsToolsPage(page);
    await tools.configureWebTools({
      search: { kind: 'tavily', baseUrl: `${llm.url}/web/tavily`, apiKey: 'tvly-e2e' },
      shouldAllowPrivateNetwork: true,
    });
    llm.queueScenarios(
      { kind: 'tool-calls', calls: [{ name: 'web_search', arguments: { query: 'alpaca care' } }] },
      { kind: 'text', text: 'Alpacas are smaller than llamas [2].' },
    );
    await chat.newChat();
    await chat.send('Tell me about alpacas');
    const answer = chat.lastAnswer();
    await expect(answer).toHaveAttribute('data-status', 'complete', { timeout: 20_000 });
    await expect(answer.locator(`a.citation[href="${llm.url}/web/pages/alpacas"]`)).toHaveText('2');
    const searched = llm.web.requests().find((request) => request.path === '/web/tavily/search' && request.method === 'POST');
    expect(searched?.headers['authorization']).toBe('Bearer tvly-e2e');
  });

  test('a private address is refused when the private network is not allowed, with the reason', async ({ page, chat, llm }) => {
    const tools = new SettingsToolsPage(page);
    await tools.configureWebTools({ shouldAllowPrivateNetwork: false });
    llm.queueScenarios(
      { kind: 'tool-calls', calls: [{ name: 'open_url', arguments: { urls: ['http://10.0.0.1/'] } }] },
      { kind: 'text', text: 'I could not open that page.' },
    );
    await chat.newChat();
    await chat.send('Open http://10.0.0.1/ please');
    const answer = chat.lastAnswer();
    await expect(answer).toContainText('I could not open that page.', { timeout: 20_000 });
    const opened = answer.locator('[data-testid="tool-block"][data-tool="open_url"]');
    await opened.locator('summary').click();
    await expect(opened.locator('.tool-result')).toContainText(/private/i);
    // Nothing was requested from the private address: the refusal happened before any fetch.
    expect(llm.web.requests()).toHaveLength(0);
  });

  test('an MCP server that cannot be reached is named above the answer, which goes on without its tools', async ({ page, chat, llm }) => {
    const tools = new SettingsToolsPage(page);
    await tools.addMcpServer({ name: 'offline', url: `${llm.url}/web/no-mcp-here` });
    llm.setScenario({ kind: 'text', text: 'Hello without tools.' });
    await chat.newChat();
    await chat.send('Hello');
    const answer = chat.lastAnswer();
    await expect(answer).toHaveAttribute('data-status', 'complete');
    await expect(answer).toContainText('Hello without tools.');
    await expect(answer.getByTestId('answer-warning')).toContainText('MCP server "offline" could not be reached');
    const generation = llm.requests().find((r) => !r.isPreflight && r.path.endsWith('/chat/completions'));
    expect(JSON.stringify(generation?.body ?? null)).not.toContain('mcp__offline');
  });

  test('an MCP tool that is not allowed asks first, then runs after Allow', async ({ page, chat, llm }) => {
    const tools = new SettingsToolsPage(page);
    await tools.addMcpServer({ name: 'weather', url: `${llm.url}/web/mcp`, authHeader: 'Authorization: Bearer mcp-e2e' });
    // The Test button reaches the server through the worker.
    await page.getByRole('button', { name: 'Edit weather' }).click();
    const form = page.getByRole('form', { name: 'Edit weather' });
    await form.getByRole('button', { name: 'Test server' }).click();
    await expect(form.getByTestId('mcp-test-result')).toContainText('get_forecast');
    await form.getByRole('button', { name: 'Cancel' }).click();

    llm.queueScenarios(
      { kind: 'tool-calls', calls: [{ name: 'mcp__weather__get_forecast', arguments: { city: 'Lima', days: 2 } }] },
      { kind: 'text', text: 'Lima looks sunny.' },
    );
    await chat.newChat();
    await chat.send('What is the weather in Lima?');

    const dialog = page.getByTestId('confirm-dialog');
    await expect(dialog).toBeVisible({ timeout: 20_000 });
    await expect(dialog).toContainText('get_forecast');
    expect(llm.web.mcpCalls()).toHaveLength(0);
    await dialog.getByRole('button', { name: 'Allow' }).click();

    const answer = chat.lastAnswer();
    await expect(answer).toContainText('Lima looks sunny.', { timeout: 20_000 });
    await expect(answer.locator('[data-testid="tool-block"][data-tool="mcp__weather__get_forecast"]')).toHaveAttribute(
      'data-status',
      'complete',
    );
    expect(llm.web.mcpCalls()).toEqual([{ tool: 'get_forecast', arguments: { city: 'Lima', days: 2 } }]);
  });
});
