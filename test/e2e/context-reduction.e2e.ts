import { expect, test } from './fixtures';
import { AgentsPage } from './pages/agents-page';
import { InspectorPage } from './pages/inspector-page';
import { SettingsToolsPage } from './pages/settings-tools-page';
import { ShellPage } from './pages/shell-page';

test('an agent keeps its upload share and history strategies, and the inspector shows both shares', async ({ seed, page, chat, llm }) => {
  await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  const agents = new AgentsPage(page);
  await agents.open();
  await agents.create({
    name: 'Researcher',
    strategy: {
      label: 'Clear old tool results',
      fields: {
        'Clear once the context passes (tokens)': '5000',
        'Newest tool calls kept whole': '2',
        'Tools never cleared (one per line)': 'read_file',
      },
      checks: ["Clear the calls' arguments too"],
    },
    uploadShare: '30',
  });
  await expect(agents.item('Researcher')).toContainText('tool results cleared past 5000 tokens');

  // Saved as entered: the editor shows every field again.
  let form = await agents.edit('Researcher');
  await expect(form.getByLabel('Strategy')).toHaveValue('clear_tool_results');
  await expect(form.getByLabel('Newest tool calls kept whole')).toHaveValue('2');
  await expect(form.getByLabel('Tools never cleared (one per line)')).toHaveValue('read_file');
  await expect(form.getByLabel("Clear the calls' arguments too")).toBeChecked();
  await expect(form.getByLabel(/Share reserved for uploaded files/)).toHaveValue('30');

  // An out-of-range share is refused with a reason, nothing is saved.
  await form.getByLabel(/Share reserved for uploaded files/).fill('95');
  await expect(form.getByText(/must be between 0 and 90 percent/)).toBeVisible();
  await expect(form.getByRole('button', { name: 'Save' })).toBeDisabled();
  await form.getByLabel(/Share reserved for uploaded files/).fill('30');

  await form.getByLabel('Strategy').selectOption({ label: 'Last turns' });
  await form.getByLabel('Turns kept (the current question included)').fill('1');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(agents.item('Researcher')).toContainText('last 1 turn');
  form = await agents.edit('Researcher');
  await expect(form.getByLabel('Turns kept (the current question included)')).toHaveValue('1');
  await form.getByRole('button', { name: 'Close' }).click();

  // The agent shapes the next request: only the question being asked, the earlier turn skipped.
  llm.setScenario({ kind: 'text', text: 'Noted.' });
  await chat.newChat();
  await chat.agentPicker().selectOption({ label: 'Researcher' });
  await chat.send('First question');
  await expect(chat.lastAnswer()).toContainText('Noted.');
  const shell = new ShellPage(page);
  const inspector = new InspectorPage(page);
  await shell.openPanel();
  await chat.composer.fill('Second question');
  await expect.poll(() => inspector.kinds()).toEqual(['S', 'M', 'U']);
  await expect(inspector.root.getByTestId('share-uploads')).toContainText('(30%)');
  await expect(inspector.root.getByTestId('share-history')).toContainText(/History and the rest \d+ of [\d.]+k/);
  await expect(inspector.root.getByTestId('budget-shares')).toHaveAttribute('aria-label', /uploads 0 of \d+ tokens reserved/);
});

test('a tool result too long for the window is truncated, not refused, and the inspector says so', async ({ seed, page, chat, llm, settings }) => {
  llm.web.clear();
  await seed.provider({ name: 'Local', baseUrl: `${llm.url}/v1`, apiKey: 'sk-e2e-local', model: 'my-own-model' }, { open: '/#/settings' });
  const card = settings.providerCard('Local');
  await card.getByLabel('Context window for my-own-model').fill('4096');
  await card.getByRole('button', { name: 'Set', exact: true }).click();
  await expect(card.getByTestId('enabled-model')).toContainText('4,096 tokens');
  await new SettingsToolsPage(page).configureWebTools({ shouldAllowPrivateNetwork: true });

  const big = `${llm.url}/web/pages/big`;
  llm.queueScenarios(
    { kind: 'tool-calls', calls: [{ id: 'call_big', name: 'open_url', arguments: { urls: [big] } }] },
    { kind: 'text', text: 'Vicuñas are the smallest camelids [1].' },
  );
  await chat.newChat();
  await chat.send('What does the long page say about vicuñas?');
  const answer = chat.lastAnswer();
  await expect(answer).toHaveAttribute('data-status', 'complete', { timeout: 20_000 });
  await expect(answer).toContainText('Vicuñas are the smallest camelids');

  // The second request carried the page shortened, with a marker the model can read.
  // (The title request that follows carries no tool message.)
  const second = llm
    .requests()
    .map((request) => JSON.stringify(request.body ?? null))
    .find((body) => body.includes('"role":"tool"'));
  expect(second).toContain('Truncated to fit the context');
  expect(second).toContain('Vicuña fact number 1.');

  await new ShellPage(page).openPanel();
  const inspector = new InspectorPage(page);
  await inspector.show('Last request');
  const reduced = inspector.root.getByTestId('inspector-reductions');
  await expect(reduced).toContainText('open_url: truncated');
  await expect(reduced).toContainText('because the newest turn did not fit the token budget');
  await expect(inspector.messages().filter({ hasText: 'open_url: truncated to fit' })).toHaveCount(1);
});
