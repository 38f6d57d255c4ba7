import { expect, test } from './fixtures';
import { installFakeSpeech, type FakeSpeechWindow } from './support/fake-speech';

test('dictation fills the composer with interim then final words, and Read aloud speaks the answer without Markdown', async ({
  seed,
  page,
  chat,
  llm,
}) => {
  await page.addInitScript(installFakeSpeech);
  await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  await chat.composer.fill('Note:');
  await page.getByRole('button', { name: 'Dictate' }).click();
  await expect(page.getByRole('button', { name: 'Stop dictation' })).toHaveAttribute('aria-pressed', 'true');

  const hear = (transcript: string, isFinal: boolean) =>
    page.evaluate(
      ([text, final]) => (window as unknown as FakeSpeechWindow).fakeSpeech.hear(text, final),
      [transcript, isFinal] as const,
    );
  await hear('what is', false);
  await expect(chat.composer).toHaveValue('Note: what is');
  await hear('what is the tallest tree', true);
  await hear(' in Europe', false);
  await expect(chat.composer).toHaveValue('Note: what is the tallest tree in Europe');
  await page.getByRole('button', { name: 'Stop dictation' }).click();
  await expect(page.getByRole('button', { name: 'Dictate' })).toHaveAttribute('aria-pressed', 'false');
  await expect(chat.composer).toHaveValue('Note: what is the tallest tree in Europe');

  llm.setScenario({ kind: 'text', text: '## Answer\n\nThe **tallest** tree is a `Douglas fir`.' });
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(chat.lastAnswer()).toContainText('Douglas fir');
  await chat.lastAnswer().getByRole('button', { name: 'Read aloud' }).click();
  await expect
    .poll(() => page.evaluate(() => (window as unknown as FakeSpeechWindow).fakeSpeech.spoken))
    .toEqual(['Answer\nThe tallest tree is a Douglas fir.']);
});

test('a dictation the browser refuses says why, keeps what was typed and can be started again', async ({ seed, page, chat, llm }) => {
  await page.addInitScript(installFakeSpeech);
  await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  await chat.composer.fill('Draft');
  await page.getByRole('button', { name: 'Dictate' }).click();
  await expect(page.getByRole('button', { name: 'Stop dictation' })).toHaveAttribute('aria-pressed', 'true');
  await page.evaluate(() => (window as unknown as FakeSpeechWindow).fakeSpeech.fail('not-allowed'));
  await expect(page.getByText('the browser does not allow this page to use the microphone')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Dictate' })).toHaveAttribute('aria-pressed', 'false');
  await expect(chat.composer).toHaveValue('Draft');
  await page.getByRole('button', { name: 'Dictate' }).click();
  await expect(page.getByRole('button', { name: 'Stop dictation' })).toHaveAttribute('aria-pressed', 'true');
});

test('Dictate and Read aloud are hidden where the browser has no speech APIs', async ({ seed, page, chat, llm }) => {
  await page.addInitScript(() => {
    const scope = window as unknown as Record<string, unknown>;
    delete scope.SpeechRecognition;
    delete scope.webkitSpeechRecognition;
    // Window attributes live on the global object itself; the prototype is checked too.
    delete scope.speechSynthesis;
    delete (Window.prototype as unknown as Record<string, unknown>).speechSynthesis;
    delete scope.SpeechSynthesisUtterance;
  });
  await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  llm.setScenario({ kind: 'text', text: 'Hello.' });
  await chat.send('hi');
  await expect(chat.lastAnswer()).toContainText('Hello.');
  await expect(chat.lastAnswer().getByRole('button', { name: 'Copy' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Read aloud' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Dictate' })).toHaveCount(0);
});
