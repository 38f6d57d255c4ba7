import { expect, test } from './fixtures';
import { OnboardingPage } from './pages/onboarding-page';

/**
 * Headless Chromium has no working recognition or voices: a scripted SpeechRecognition stands
 * in for the microphone (the test fires its results), and speechSynthesis.speak is recorded.
 */
function installFakeSpeech(): void {
  type Result = { isFinal: boolean; 0: { transcript: string } };
  class FakeRecognition {
    lang = '';
    continuous = false;
    interimResults = false;
    onresult: ((event: { results: Result[] }) => void) | null = null;
    onerror: ((event: { error: string }) => void) | null = null;
    onend: (() => void) | null = null;
    private results: Result[] = [];
    start(): void {
      const scope = window as unknown as { fakeRecognition?: FakeRecognition };
      scope.fakeRecognition = this;
    }
    stop(): void {
      this.onend?.();
    }
    /** Replaces the unfinished result with `transcript`, final or not, as a browser does. */
    hear(transcript: string, isFinal: boolean): void {
      const last = this.results[this.results.length - 1];
      if (last !== undefined && !last.isFinal) this.results.pop();
      this.results.push({ isFinal, 0: { transcript } });
      this.onresult?.({ results: [...this.results] });
    }
  }
  const scope = window as unknown as Record<string, unknown>;
  scope.webkitSpeechRecognition = FakeRecognition;
  const spoken: string[] = [];
  scope.spokenTexts = spoken;
  speechSynthesis.speak = (utterance: SpeechSynthesisUtterance) => {
    spoken.push(utterance.text);
  };
}

test('dictation fills the composer with interim then final words, and Read aloud speaks the answer without Markdown', async ({
  page,
  chat,
  llm,
}) => {
  await page.addInitScript(installFakeSpeech);
  await new OnboardingPage(page).connectCustom({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  await chat.composer.fill('Note:');
  await page.getByRole('button', { name: 'Dictate' }).click();
  await expect(page.getByRole('button', { name: 'Stop dictation' })).toHaveAttribute('aria-pressed', 'true');

  const hear = (transcript: string, isFinal: boolean) =>
    page.evaluate(
      ([text, final]) => {
        const scope = window as unknown as { fakeRecognition: { hear(t: string, f: boolean): void } };
        scope.fakeRecognition.hear(text, final);
      },
      [transcript, isFinal] as const,
    );
  await hear('what is', false);
  await expect(chat.composer).toHaveValue('Note: what is');
  await hear('what is the tallest tree', true);
  await hear(' in Europe', false);
  await expect(chat.composer).toHaveValue('Note: what is the tallest tree in Europe');
  await page.getByRole('button', { name: 'Stop dictation' }).click();
  await expect(page.getByRole('button', { name: 'Dictate' })).toHaveAttribute('aria-pressed', 'false');

  llm.setScenario({ kind: 'text', text: '## Answer\n\nThe **tallest** tree is a `Douglas fir`.' });
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(chat.lastAnswer()).toContainText('Douglas fir');
  await chat.lastAnswer().getByRole('button', { name: 'Read aloud' }).click();
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { spokenTexts: string[] }).spokenTexts))
    .toEqual(['Answer\nThe tallest tree is a Douglas fir.']);
});

test('Dictate and Read aloud are hidden where the browser has no speech APIs', async ({ page, chat, llm }) => {
  await page.addInitScript(() => {
    const scope = window as unknown as Record<string, unknown>;
    delete scope.SpeechRecognition;
    delete scope.webkitSpeechRecognition;
    // Window attributes live on the global object itself; the prototype is checked too.
    delete scope.speechSynthesis;
    delete (Window.prototype as unknown as Record<string, unknown>).speechSynthesis;
    delete scope.SpeechSynthesisUtterance;
  });
  await new OnboardingPage(page).connectCustom({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  llm.setScenario({ kind: 'text', text: 'Hello.' });
  await chat.send('hi');
  await expect(chat.lastAnswer()).toContainText('Hello.');
  await expect(chat.lastAnswer().getByRole('button', { name: 'Copy' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Read aloud' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Dictate' })).toHaveCount(0);
});
