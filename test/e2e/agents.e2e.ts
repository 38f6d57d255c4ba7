import { expect, test } from './fixtures';
import { AgentsPage } from './pages/agents-page';
import { ShellPage } from './pages/shell-page';

test('an agent is created, picked for a new chat and shapes the request; duplicate and delete with undo', async ({
  seed,
  page,
  chat,
  llm,
}) => {
  await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  const agents = new AgentsPage(page);
  await agents.open();
  await expect(agents.item('Default')).toContainText('Built-in');
  await agents.create({
    name: 'Pirate',
    prompt: 'Always answer like a pirate.',
    reminders: 'Say arr at the end.',
    strategy: { label: 'Last messages', fields: { 'Messages kept': '6' } },
  });
  await expect(agents.item('Pirate')).toContainText('last 6 messages');

  llm.setScenario({ kind: 'text', text: 'Arr, hello.' });
  await chat.newChat();
  await chat.agentPicker().selectOption({ label: 'Pirate' });
  await chat.send('hello');
  const request = await llm.waitForRequest();
  const body = JSON.stringify(request.body);
  expect(body).toContain('Always answer like a pirate.');
  expect(body).toContain('Say arr at the end.');
  await expect(chat.lastAnswer()).toContainText('Arr, hello.');
  // The chat keeps its agent after a reload.
  await page.reload();
  await expect(chat.agentPicker()).toHaveValue(/.+/);
  await expect(chat.agentPicker().locator('option:checked')).toHaveText('Pirate');

  await agents.open();
  await agents.item('Pirate').getByRole('button', { name: 'Duplicate' }).click();
  await expect(agents.item('Pirate (copy)')).toBeVisible();
  await agents.item('Pirate (copy)').getByRole('button', { name: 'Delete' }).click();
  await expect(agents.item('Pirate (copy)')).toHaveCount(0);
  await new ShellPage(page).undo(/Deleted the agent "Pirate \(copy\)"/);
  await expect(agents.item('Pirate (copy)')).toBeVisible();
});
