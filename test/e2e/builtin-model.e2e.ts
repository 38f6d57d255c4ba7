import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { BuiltinModelPage } from './pages/builtin-model-page';
import { ChatPage } from './pages/chat-page';
import { OnboardingPage } from './pages/onboarding-page';
import { waitForServiceWorker } from './support/service-worker';

/**
 * The built-in model end to end in Chromium: no provider, one click, and an answer computed in
 * the browser by transformers.js in the generation worker. The model is the tiny generated one
 * (test/fixtures/models/carrel/tiny-chat), served by the mock server as a self-hosted folder; it
 * answers "Hello from the tiny built-in model. " over and over until stopped.
 */
const TINY_CHAT = 'carrel/tiny-chat';
/** Where transformers.js looks for model files, and where the download puts them. */
const MODEL_CACHE = 'transformers-cache';

async function listModelCache(page: Page): Promise<string[]> {
  return page.evaluate(async (name) => (await (await caches.open(name)).keys()).map((request) => request.url), MODEL_CACHE);
}

test('with no provider, "Use the built-in model" downloads it and answers in the browser, then offline after a reload', async ({ page, context, llm }) => {
  // A model load and ONNX Runtime's WebAssembly compile, twice (before and after the reload), on
  // a busy two-core machine.
  test.setTimeout(90_000);
  const onboarding = new OnboardingPage(page);
  const builtin = new BuiltinModelPage(page);
  const chat = new ChatPage(page);
  await onboarding.open();
  await expect(builtin.section()).toContainText('410 MB');
  await expect(builtin.section()).toContainText('Apache-2.0');
  await builtin.useFolder(`${llm.url}/models`, TINY_CHAT);

  // Held at the weights, the download shows its progress bar; released, the chat opens.
  const release = llm.models.hold('onnx/model_quantized.onnx');
  await builtin.use();
  await expect(builtin.progress()).toBeVisible();
  release();
  await builtin.expectChatReady();

  await chat.send('hello');
  await chat.waitForLastAnswerToShow('Hello from the tiny built-in model.', 20_000);
  await chat.stop();
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);
  const kept = (await chat.lastAnswer().textContent()) ?? '';
  expect(kept).toContain('Hello from the tiny built-in model.');

  // Offline, after a reload: the stopped answer is still there and the model answers again from
  // the browser's cache, with no request to the folder.
  const served = llm.models.served().length;
  await waitForServiceWorker(page);
  await context.setOffline(true);
  await page.reload();
  await expect(chat.lastAnswer()).toContainText('Hello from the tiny built-in model.');
  await chat.send('and again?');
  await chat.waitForLastAnswerToShow('Hello from the tiny built-in model.', 20_000);
  await chat.stop();
  await expect(chat.answers()).toHaveCount(2);
  expect(llm.models.served().length).toBe(served);
  await context.setOffline(false);

  expect(await listModelCache(page)).toEqual(expect.arrayContaining([`${llm.url}/models/${TINY_CHAT}/onnx/model_quantized.onnx`]));

  // The suite checks that no other origin's replies are cached: this model's copy goes now.
  await page.evaluate((name) => caches.delete(name), MODEL_CACHE);
});
