import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { BuiltinModelPage, BuiltinModelSettingsPage } from './pages/builtin-model-page';
import { ChatPage } from './pages/chat-page';
import { OnboardingPage } from './pages/onboarding-page';
import { waitForServiceWorker } from './support/service-worker';

/**
 * The built-in model end to end in Chromium: no provider, one click, and an answer computed in
 * the browser by transformers.js in the generation worker. The model is the tiny generated one
 * (test/fixtures/models/carrel/tiny-chat), served by the mock server as a self-hosted folder; it
 * answers "Hello from the tiny built-in model. " over and over and never ends on its own, so an
 * answer that ends early was ended by Stop.
 */
// Each test downloads the model and generates with it in WebAssembly: on a loaded two-core
// machine the first answer alone has taken 17 s, and past 20 s in a clean-clone run at a load
// of 11. These are hang limits.
test.describe.configure({ timeout: 180_000 });
const FIRST_TEXT_MS = 60_000;

const TINY_CHAT = 'carrel/tiny-chat';
const FIXTURE_MODELS = path.join(process.cwd(), 'test/fixtures/models');
/** Where transformers.js looks for model files, and where the download puts them. */
const MODEL_CACHE = 'transformers-cache';
/** The tiny model's answer, token by token (its tokenizer has a merge for each of these). */
const ANSWER_TOKENS = ['Hello', ' from', ' the', ' tiny', ' built', '-in', ' model', '.', ' '];
/**
 * The answer's token limit for local and built-in models (LOCAL_MAX_OUTPUT_TOKENS in
 * src/core/model/local-models.ts). The tiny model never ends by itself, so an answer that ends
 * below it was ended by Stop, in the model. How many tokens the answer gains after the click is
 * not that measure: it is those already on their way to the page, which on a loaded machine lags
 * the worker (66 tokens in one CI run).
 */
const ANSWER_TOKEN_LIMIT = 384;

/** How many of the tiny model's tokens the shown answer holds. */
function countAnswerTokens(shown: string): number {
  let offset = shown.indexOf('Hello');
  let count = 0;
  while (offset >= 0) {
    const token = ANSWER_TOKENS[count % ANSWER_TOKENS.length] ?? '';
    if (!shown.startsWith(token, offset)) break;
    offset += token.length;
    count += 1;
  }
  return count;
}

/** A fresh profile's first screen → the tiny model from the mock server's folder → the chat. */
async function startWithTinyModel(page: Page, serverUrl: string): Promise<void> {
  const builtin = new BuiltinModelPage(page);
  await new OnboardingPage(page).open();
  await builtin.useFolder(`${serverUrl}/models`, TINY_CHAT);
  await builtin.use();
  await builtin.expectChatReady();
}

async function listModelCache(page: Page): Promise<string[]> {
  return page.evaluate(async (name) => (await (await caches.open(name)).keys()).map((request) => request.url), MODEL_CACHE);
}

test('with no provider, "Use the built-in model" downloads it and answers in the browser; Stop ends the answer at once, keeping its text, and Settings shows how it ran', async ({ page, llm }) => {
  const builtin = new BuiltinModelPage(page);
  const chat = new ChatPage(page);
  const settings = new BuiltinModelSettingsPage(page);
  await new OnboardingPage(page).open();
  await expect(builtin.section()).toContainText('410 MB');
  await expect(builtin.section()).toContainText('Apache-2.0');
  await builtin.useFolder(`${llm.url}/models`, TINY_CHAT);
  const requested: string[] = [];
  page.context().on('request', (request) => requested.push(request.url()));
  // Headless Chromium here has no GPU adapter: the model runs on WebAssembly, and ONNX Runtime's
  // WebGPU build (its 27 MB WebAssembly file) is never fetched. With an adapter it runs on WebGPU.
  const hasGpuAdapter = await page.evaluate(async () => {
    const gpu = (navigator as { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
    return gpu === undefined ? false : (await gpu.requestAdapter().catch(() => null)) !== null;
  });

  // Held at the weights, the download shows its progress bar; released, the chat opens.
  const release = llm.models.hold('onnx/model_quantized.onnx');
  await builtin.use();
  await expect(builtin.progress()).toBeVisible();
  release();
  await builtin.expectChatReady();

  await chat.send('hello');
  await chat.waitForLastAnswerToShow('Hello from the tiny built-in model.', FIRST_TEXT_MS);
  const tokensAtStop = countAnswerTokens(await chat.stopReadingLastAnswer());
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);
  await expect(chat.lastAnswer()).toContainText('Stopped');
  const keptTokens = countAnswerTokens((await chat.lastAnswer().textContent()) ?? '');
  expect(keptTokens).toBeGreaterThanOrEqual(tokensAtStop);
  expect(keptTokens).toBeLessThan(ANSWER_TOKEN_LIMIT);

  // The generation worker answers, so it is idle (it reads no message while it computes), and the
  // tokens it made are those kept, give or take the ones under way when Stop came.
  await settings.open();
  const runtime = hasGpuAdapter ? 'WebGPU' : 'WebAssembly, \\d+ threads?';
  await expect(settings.status()).toContainText(new RegExp(`Runs with ${runtime} · last answer \\d+ tokens, stopped · [\\d.]+ tokens/s`));
  expect(requested.filter((url) => url.includes('ort-wasm-simd-threaded.asyncify')).length > 0).toBe(hasGpuAdapter);
  expect(requested.some((url) => /ort-wasm-simd-threaded-[\w-]+\.wasm$/.test(url))).toBe(true);
  const madeTokens = Number(/last answer (\d+) tokens/.exec((await settings.status().textContent()) ?? '')?.[1]);
  expect(madeTokens).toBeGreaterThanOrEqual(keptTokens);
  expect(madeTokens).toBeLessThan(ANSWER_TOKEN_LIMIT);

  // Deleting the files unloads the model and frees their space: the storage meter drops.
  await expect.poll(() => settings.storageUsed()).toBeGreaterThan(0);
  const usedBefore = await settings.storageUsed();
  await settings.deleteFiles();
  await expect(settings.section()).toContainText('The model files were deleted.');
  await expect(settings.status()).toContainText('Not loaded yet');
  expect(await listModelCache(page)).toEqual([]);
  await expect.poll(() => settings.storageUsed()).toBeLessThan(usedBefore);
});

test.describe('offline', () => {
  // The app's offline copy comes from its service worker, which playwright.config.ts blocks elsewhere.
  test.use({ serviceWorkers: 'allow' });

  test('the built-in model answers offline after a reload, from the browser cache, and stops there at once too', async ({ page, context, llm }) => {
    const chat = new ChatPage(page);
    await startWithTinyModel(page, llm.url);
    expect(await listModelCache(page)).toEqual(expect.arrayContaining([`${llm.url}/models/${TINY_CHAT}/onnx/model_quantized.onnx`]));

    const served = llm.models.served().length;
    await waitForServiceWorker(page);
    await context.setOffline(true);
    await page.reload();
    await chat.send('hello, offline');
    await chat.waitForLastAnswerToShow('Hello from the tiny built-in model.', FIRST_TEXT_MS);
    const tokensAtStop = countAnswerTokens(await chat.stopReadingLastAnswer());
    await expect(chat.lastAnswer()).toContainText('Stopped');
    const keptTokens = countAnswerTokens((await chat.lastAnswer().textContent()) ?? '');
    expect(keptTokens).toBeGreaterThanOrEqual(tokensAtStop);
    expect(keptTokens).toBeLessThan(ANSWER_TOKEN_LIMIT);
    expect(llm.models.served().length).toBe(served);
    await context.setOffline(false);

    // The suite checks that no other origin's replies are cached: this model's copy goes now.
    await page.evaluate((name) => caches.delete(name), MODEL_CACHE);
  });
});

test('a built-in model whose code failed to load for the chat engine is started again, and the question is answered', async ({ page, llm }) => {
  const chat = new ChatPage(page);
  await startWithTinyModel(page, llm.url);
  // After a reload the chat engine is the first to ask the model's worker for anything. Its
  // first fetch of the model's code is cut off, as a busy or just-offline page sees it: that
  // worker keeps the module as failed, so only a fresh worker can answer.
  const fetched: string[] = [];
  await page.route(/\/assets\/generation-host-[^/]*\.js$/, async (route) => {
    fetched.push(fetched.length === 0 ? 'aborted' : 'served');
    if (fetched.length === 1) await route.abort('aborted');
    else await route.continue();
  });
  await page.reload();
  await chat.send('hello');
  await chat.waitForLastAnswerToShow('Hello from the tiny built-in model.', FIRST_TEXT_MS);
  await chat.stopReadingLastAnswer();
  await expect(page.getByRole('button', { name: 'Stop' })).toHaveCount(0);
  await expect(chat.lastAnswer().getByTestId('answer-error')).toHaveCount(0);
  expect(fetched).toEqual(['aborted', 'served']);
  await page.evaluate((name) => caches.delete(name), MODEL_CACHE);
});

test('Cancel stops the download under its bar, keeps what arrived and offers to resume', async ({ page, llm }) => {
  const builtin = new BuiltinModelPage(page);
  await new OnboardingPage(page).open();
  await builtin.useFolder(`${llm.url}/models`, TINY_CHAT);
  const release = llm.models.hold('onnx/model_quantized.onnx', { fromByte: 1 });
  await builtin.use();
  await expect(builtin.progress()).toBeVisible();
  // Part of the weights arrived before the hold.
  await expect.poll(async () => Number(await builtin.progress().getAttribute('value'))).toBeGreaterThan(0);
  await page.screenshot({ path: 'test-results/screenshots/progress-builtin-model.png' });
  await builtin.section().getByRole('button', { name: 'Cancel download' }).click();
  await expect(builtin.section().getByRole('alert')).toHaveText('The download was cancelled; what arrived is kept.');
  await expect(builtin.section().getByRole('button', { name: 'Resume download' })).toBeVisible();
  await expect(builtin.section().getByRole('button', { name: 'Cancel download' })).toHaveCount(0);
  // No provider was added: the first screen stays.
  await expect(page.getByLabel('Message', { exact: true })).toHaveCount(0);
  release();
  await page.evaluate((name) => caches.delete(name), MODEL_CACHE);
});

test('a download cut short by a reload shows what arrived after the reload and resumes from there', async ({ page, llm }) => {
  const builtin = new BuiltinModelPage(page);
  const chat = new ChatPage(page);
  const weights = `/models/${TINY_CHAT}/onnx/model_quantized.onnx`;
  await new OnboardingPage(page).open();
  await builtin.useFolder(`${llm.url}/models`, TINY_CHAT);

  // The weights come in parts: the first arrives and is kept, the second never comes.
  const release = llm.models.hold('onnx/model_quantized.onnx', { fromByte: 1 });
  await builtin.use();
  await expect.poll(async () => (await listModelCache(page)).some((url) => url.endsWith('model_quantized.onnx.carrel-part-0'))).toBe(true);
  const fractionBefore = Number(await builtin.progress().getAttribute('value'));
  expect(fractionBefore).toBeGreaterThan(0);
  expect(fractionBefore).toBeLessThan(1);

  await page.reload();
  // The new page knows the download, its source, and how far it got.
  await expect(builtin.section()).toContainText('The download was interrupted; it resumes where it stopped.');
  await expect(builtin.section().getByRole('button', { name: 'Resume download' })).toBeVisible();
  await expect.poll(async () => Number(await builtin.progress().getAttribute('value'))).toBeCloseTo(fractionBefore, 5);
  await expect(builtin.section().getByRole('status')).toContainText(/\d+ kB of 170 kB/);

  release();
  await builtin.use();
  await builtin.expectChatReady();
  // Nothing that arrived before the reload was fetched again.
  const firstParts = llm.models.servedRanges().filter((range) => range.startsWith(`${weights} bytes=0-`));
  expect(firstParts).toHaveLength(1);
  const wholeFiles = llm.models.served();
  expect(new Set(wholeFiles).size).toBe(wholeFiles.length);

  // The file joined from parts of two pages is the model: it answers.
  await chat.send('hello');
  await chat.waitForLastAnswerToShow('Hello from the tiny built-in model.', FIRST_TEXT_MS);
  await chat.stopReadingLastAnswer();
  await page.evaluate((name) => caches.delete(name), MODEL_CACHE);
});

test('a model folder imported from this device answers with nothing fetched, and a folder without the weights is refused with the missing file named', async ({ page, llm }) => {
  const builtin = new BuiltinModelPage(page);
  const chat = new ChatPage(page);
  await new OnboardingPage(page).open();

  // The embedder's folder has no onnx/model_quantized.onnx: refused, nothing stored, no provider.
  await builtin.importFolder(path.join(FIXTURE_MODELS, 'carrel/tiny-embedder'), 'carrel/tiny-embedder');
  await expect(builtin.section().getByRole('alert')).toContainText('This folder is not a complete model: onnx/model_quantized.onnx missing.');
  expect(await listModelCache(page)).toEqual([]);
  await expect(page.getByLabel('Message', { exact: true })).toHaveCount(0);

  await builtin.importFolder(path.join(FIXTURE_MODELS, TINY_CHAT), TINY_CHAT);
  await builtin.expectChatReady();
  await chat.send('hello');
  await chat.waitForLastAnswerToShow('Hello from the tiny built-in model.', FIRST_TEXT_MS);
  await chat.stopReadingLastAnswer();
  await expect(chat.lastAnswer()).toContainText('Stopped');
  expect(llm.models.served()).toEqual([]);
  expect(llm.models.servedRanges()).toEqual([]);
  await page.evaluate((name) => caches.delete(name), MODEL_CACHE);
});

test('regenerating an answer of the built-in model makes a second branch, as with any provider', async ({ page, llm }) => {
  const chat = new ChatPage(page);
  await startWithTinyModel(page, llm.url);

  // The tiny model never ends on its own: each answer is stopped once it shows.
  await chat.send('hello');
  await chat.waitForLastAnswerToShow('Hello from the tiny built-in model.', FIRST_TEXT_MS);
  await chat.stopReadingLastAnswer();
  await expect(chat.lastAnswer()).toContainText('Stopped');
  await expect(chat.lastAnswer().getByTestId('answer-model')).toHaveText(TINY_CHAT);

  await chat.regenerateWith(chat.lastAnswer(), TINY_CHAT);
  await chat.waitForLastAnswerToShow('Hello from the tiny built-in model.', FIRST_TEXT_MS);
  await chat.stopReadingLastAnswer();
  await expect(chat.lastAnswer()).toContainText('Stopped');
  await expect(chat.branchLabel(chat.lastAnswer())).toHaveText('2/2');
  await expect(chat.answers()).toHaveCount(1);
  await chat.previousBranch(chat.lastAnswer());
  await expect(chat.branchLabel(chat.lastAnswer())).toHaveText('1/2');
  await expect(chat.lastAnswer().getByTestId('answer-model')).toHaveText(TINY_CHAT);
  await page.evaluate((name) => caches.delete(name), MODEL_CACHE);
});
