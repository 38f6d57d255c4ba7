import { expect, test } from './fixtures';
import { OnboardingPage } from './pages/onboarding-page';

test.describe('a first chat', () => {
  test.beforeEach(async ({ page, llm }) => {
    await new OnboardingPage(page).connectCustom({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  });

  test('titles the chat in plain words, without the Markdown of the question or the model', async ({ page, chat, llm }) => {
    llm.setScenario({ kind: 'text', text: '**Paris** is the capital.' });
    await chat.send('# What is the **capital** of France?');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    const title = /^(What is the capital of France\?|Paris is the capital)$/;
    await expect(chat.sessionLinks()).toHaveText([title]);
    await expect(page.getByTestId('screen-title')).toHaveText(title);
  });
});
