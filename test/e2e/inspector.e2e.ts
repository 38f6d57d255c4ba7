import { expect, test } from './fixtures';
import { InspectorPage } from './pages/inspector-page';
import { OnboardingPage } from './pages/onboarding-page';
import { ShellPage } from './pages/shell-page';

test.describe('the context inspector and the token meter', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  });

  test('shows the next request as it would be sent and the last one, labelled by kind with tokens', async ({ page, chat, llm }) => {
    const shell = new ShellPage(page);
    const inspector = new InspectorPage(page);
    await shell.openPanel();

    await chat.composer.fill('What is the capital of France?');
    await expect(page.getByTestId('draft-tokens')).toHaveText(/^[1-9]\d*$/);
    await expect(page.getByTestId('context-tokens')).toHaveText(/^\d+(\.\d)?k? \/ \d+(\.\d+)?k$/);
    await expect.poll(() => inspector.kinds()).toEqual(['S', 'U']);
    await expect(inspector.messages().last()).toContainText(/\d+ tokens/);
    await inspector.messages().last().getByText('User', { exact: true }).click();
    await expect(inspector.messages().last()).toContainText('What is the capital of France?');
    await expect(page.getByTestId('project-mode')).toHaveText('None');

    llm.setScenario({ kind: 'text', text: 'Paris.' });
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(chat.lastAnswer()).toContainText('Paris.');
    // Next request: the history so far plus the (empty) draft.
    await expect.poll(() => inspector.kinds()).toEqual(['S', 'U', 'A', 'U']);

    // Last request: what answered the question, which matches what the mock received.
    await inspector.show('Last request');
    await expect.poll(() => inspector.kinds()).toEqual(['S', 'U']);
    const sent = (await llm.waitForRequest()).body as { messages: Array<{ role: string }> };
    expect(sent.messages.map((m) => m.role)).toEqual(['system', 'user']);
    await expect(inspector.root.getByRole('button', { name: 'Copy as JSON' })).toBeVisible();
    await shell.screenshot('inspector-wide-light');
  });

  test('a local model keeps Send enabled while offline', async ({ page, context, chat }) => {
    await chat.composer.fill('hello');
    await context.setOffline(true);
    await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
    await context.setOffline(false);
  });
});

test('Send says why it is disabled while offline with a cloud provider', async ({ page, context, chat }) => {
  const onboarding = new OnboardingPage(page);
  await onboarding.open();
  await onboarding.choose('OpenAI');
  const form = page.getByRole('form', { name: 'Connect OpenAI' });
  await form.getByLabel(/API key/).fill('sk-never-used');
  await form.getByRole('button', { name: 'Start chatting' }).click();
  await chat.composer.fill('hello');
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
  await context.setOffline(true);
  await expect(page.getByTestId('send-blocked')).toHaveText(/offline/i);
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
  await context.setOffline(false);
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
});
