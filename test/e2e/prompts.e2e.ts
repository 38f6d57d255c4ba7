import { expect, test } from './fixtures';
import { PromptsPage } from './pages/prompts-page';
import { ShellPage } from './pages/shell-page';

test('a saved prompt with two variables is found with /, filled in and sent', async ({ seed, page, chat, llm }) => {
  await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  const prompts = new PromptsPage(page);
  await prompts.open();
  await page.getByRole('button', { name: 'New prompt' }).click();
  await page.getByRole('form').getByLabel('Text').fill('Translate {{text}} into {{ language }}.');
  await expect(page.getByText('Variables: text, language')).toBeVisible();
  await prompts.fill('Translate text', 'Translate {{text}} into {{ language }}.');
  await prompts.create('Summarise', 'Summarise this in three bullet points.');

  await chat.newChat();
  await chat.composer.pressSequentially('/trans');
  const options = page.getByRole('listbox', { name: 'Saved prompts' }).getByRole('option');
  await expect(options).toHaveCount(1);
  await expect(options.first()).toContainText('Translate text');
  await expect(chat.composer).toHaveAttribute('aria-activedescendant', 'prompt-option-0');
  await chat.composer.press('Enter');

  const form = page.getByRole('group', { name: 'Fill in "Translate text"' });
  await expect(form.getByLabel('text')).toBeFocused();
  await form.getByLabel('text').fill('good morning');
  await form.getByLabel('language').fill('French');
  await form.getByLabel('language').press('Enter');
  await expect(chat.composer).toHaveValue('Translate good morning into French.');
  await expect(chat.composer).toBeFocused();

  llm.setScenario({ kind: 'text', text: 'Bonjour.' });
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(chat.lastAnswer()).toContainText('Bonjour.');
  expect(JSON.stringify((await llm.waitForRequest()).body)).toContain('Translate good morning into French.');

  // Keyboard: the list narrows as you type, arrows move, Escape closes it and keeps the text.
  await chat.composer.pressSequentially('/');
  await expect(options).toHaveCount(2);
  await chat.composer.press('ArrowDown');
  await expect(options.nth(1)).toHaveAttribute('aria-selected', 'true');
  await chat.composer.press('Escape');
  await expect(options).toHaveCount(0);
  await expect(chat.composer).toHaveValue('/');
  await chat.composer.pressSequentially('s');
  await expect(options).toHaveCount(2);
  await options.filter({ hasText: 'Summarise' }).click();
  await expect(chat.composer).toHaveValue('Summarise this in three bullet points.');
});

test('a saved prompt is edited and deleted, with undo', async ({ seed, page, llm }) => {
  await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  const prompts = new PromptsPage(page);
  await prompts.open();
  await prompts.create('Summarise', 'Summarise this in three bullet points.');
  await prompts.item('Summarise').getByRole('button', { name: 'Edit' }).click();
  await prompts.fill('Summarise briefly', 'Summarise this in one line.');
  await expect(prompts.item('Summarise briefly')).toContainText('Summarise this in one line.');
  await prompts.item('Summarise briefly').getByRole('button', { name: 'Delete' }).click();
  await expect(prompts.item('Summarise briefly')).toHaveCount(0);
  await new ShellPage(page).undo(/Deleted the prompt "Summarise briefly"/);
  await expect(prompts.item('Summarise briefly')).toBeVisible();
});
