import { expect, test } from './fixtures';
import { ChatPage } from './pages/chat-page';
import { OnboardingPage } from './pages/onboarding-page';
import { ShellPage } from './pages/shell-page';

test('a first visit offers provider cards and one form leads to a working chat', async ({ page, llm }) => {
  const onboarding = new OnboardingPage(page);
  const chat = new ChatPage(page);
  await onboarding.open();
  const cards = page.getByRole('list', { name: 'Providers' }).getByRole('button');
  await expect(cards).toHaveCount(7);
  for (const name of ['OpenAI', 'Anthropic', 'Google Gemini', 'OpenRouter', 'Ollama', 'LM Studio', 'Custom endpoint']) {
    await expect(cards.filter({ hasText: new RegExp(`^${name}`) })).toHaveCount(1);
  }
  // A cloud card asks for a key, not an address, and explains what is missing.
  await onboarding.choose('OpenAI');
  await expect(page.getByRole('form', { name: 'Connect OpenAI' }).getByLabel('Base URL')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Start chatting' })).toBeDisabled();
  await expect(page.getByText('Paste your OpenAI API key.')).toBeVisible();
  await new ShellPage(page).screenshot('onboarding-wide-light');

  llm.setScenario({ kind: 'text', text: 'Hi from the mock.' });
  await onboarding.connectCustom({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  await chat.send('hello');
  await expect(chat.lastAnswer()).toContainText('Hi from the mock.');
  // Focus returns to the composer after sending.
  await expect(chat.composer).toBeFocused();
});
