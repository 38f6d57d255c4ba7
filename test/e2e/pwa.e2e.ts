import { chromium, type LaunchOptions, type Page } from '@playwright/test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { expect, test } from './fixtures';
import { EmbeddingSettingsPage } from './pages/embedding-settings-page';
import { ProjectPage } from './pages/project-page';
import { ShellPage } from './pages/shell-page';
import { waitForServiceWorker } from './support/service-worker';

/**
 * The installable, offline-capable app on the production build (`vite preview`), under the
 * production security headers. Offline means `context.setOffline(true)`: Chromium then fails
 * every network request, including the mock LLM server on 127.0.0.1, so only the service worker
 * can answer.
 */

// The service worker is the subject here (playwright.config.ts blocks it elsewhere).
test.use({ serviceWorkers: 'allow' });

const API_KEY = 'sk-e2e-pwa-key';
/** The tiny BERT-shaped test model (scripts/make-tiny-model.py), as a folder a person would pick. */
const TINY_MODEL_FOLDER = path.resolve('test/fixtures/models/carrel/tiny-embedder');
const DEFAULT_EMBEDDING_MODEL = 'Xenova/all-MiniLM-L6-v2';

async function listCachedUrls(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const request of await cache.keys()) urls.push(request.url);
    }
    return urls;
  });
}

/**
 * Chromium never calls an off-the-record profile installable ("in-incognito"), and every test
 * context is one; so the installability check opens the app once in a throwaway real profile.
 */
async function readInstallabilityErrors(
  baseURL: string,
  launchOptions: LaunchOptions,
): Promise<string[]> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'carrel-install-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    ...launchOptions,
    baseURL,
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto('/');
    await waitForServiceWorker(page);
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    return installabilityErrors.map((error) => error.errorId);
  } finally {
    await context.close();
    await rm(userDataDir, { recursive: true, force: true });
  }
}

/** Width and height from a PNG's IHDR chunk. */
function readPngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(1, 4).toString('ascii')).toBe('PNG');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

test.describe('installable app', () => {
  test('serves the strict Content-Security-Policy with cross-origin isolation', async ({
    page,
    cspViolations,
  }) => {
    const response = await page.goto('/');
    const headers = response?.headers() ?? {};
    const directives = (headers['content-security-policy'] ?? '').split(';').map((d) => d.trim());
    expect(directives).toEqual(
      expect.arrayContaining([
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        "img-src 'self' data: blob:",
        "worker-src 'self' blob:",
        "connect-src 'self' https: http://localhost:* http://127.0.0.1:*",
      ]),
    );
    expect(headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(headers['cross-origin-embedder-policy']).toBe('credentialless');
    await expect(page.getByRole('link', { name: 'New chat' }).first()).toBeVisible();
    // ONNX Runtime needs SharedArrayBuffer for threads, which only an isolated page gets.
    expect(await page.evaluate(() => window.crossOriginIsolated)).toBe(true);
    // The policy is enforced, not just sent: an inline script does not run.
    const didInlineRun = await page.evaluate(async () => {
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = true';
      const violation = new Promise((resolve) =>
        document.addEventListener('securitypolicyviolation', resolve, { once: true }),
      );
      document.head.append(script);
      await violation;
      return (window as unknown as { __inlineRan?: boolean }).__inlineRan === true;
    });
    expect(didInlineRun).toBe(false);
    // The suite-wide CSP fixture saw it; this one was on purpose, so clear it.
    await expect.poll(() => cspViolations.join('\n')).toContain('script-src-elem blocked inline');
    cspViolations.splice(0);
  });

  test('has a valid manifest that Chromium reports as installable', async ({
    page,
    baseURL,
    cspViolations,
  }, testInfo) => {
    // It launches a second, non-incognito Chromium to ask about installability.
    test.slow();
    await page.goto('/');
    expect(await waitForServiceWorker(page)).toBe('activated');

    const manifestHref = await page.locator('link[rel="manifest"]').getAttribute('href');
    expect(manifestHref).toBe('/manifest.webmanifest');
    const response = await page.request.get(manifestHref ?? '');
    expect(response.headers()['content-type']).toContain('application/manifest+json');
    const manifest = (await response.json()) as {
      name: string;
      short_name: string;
      description: string;
      start_url: string;
      display: string;
      theme_color: string;
      background_color: string;
      icons: Array<{ src: string; sizes: string; type: string; purpose?: string }>;
      shortcuts: Array<{ name: string; url: string }>;
    };
    expect(manifest).toMatchObject({
      name: 'Carrel',
      short_name: 'Carrel',
      start_url: '/',
      display: 'standalone',
      theme_color: expect.stringMatching(/^#[0-9a-f]{6}$/i),
      background_color: expect.stringMatching(/^#[0-9a-f]{6}$/i),
    });
    expect(manifest.description.length).toBeGreaterThan(10);
    expect(manifest.shortcuts).toEqual([expect.objectContaining({ name: 'New chat', url: '/#/' })]);

    const iconKinds: string[] = [];
    for (const icon of manifest.icons) {
      const iconResponse = await page.request.get(`/${icon.src}`);
      expect(iconResponse.ok()).toBe(true);
      const { width, height } = readPngSize(await iconResponse.body());
      expect(`${width}x${height}`).toBe(icon.sizes);
      iconKinds.push(`${icon.sizes} ${icon.purpose ?? 'any'}`);
    }
    expect(iconKinds).toEqual(
      expect.arrayContaining(['192x192 any', '512x512 any', '512x512 maskable']),
    );

    const cdp = await page.context().newCDPSession(page);
    const { errors: manifestErrors } = await cdp.send('Page.getAppManifest');
    expect(manifestErrors).toEqual([]);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    expect(installabilityErrors.map((error) => error.errorId)).toEqual(['in-incognito']);
    const launchOptions = testInfo.project.use.launchOptions ?? {};
    expect(await readInstallabilityErrors(baseURL ?? '', launchOptions)).toEqual([]);
    expect(cspViolations).toEqual([]);
  });

  test('works offline: the app reloads from its own cache and stored chats open', async ({
    seed,
    page,
    context,
    chat,
    llm,
  }) => {
    await seed.provider({
      name: 'Mock OpenAI',
      baseUrl: `${llm.url}/v1`,
      apiKey: API_KEY,
      model: 'gpt-4o-mini',
    });
    const activeState = await waitForServiceWorker(page);
    expect(activeState).toBe('activated');

    // A chat made online, across origins under COEP credentialless.
    llm.setScenario({ kind: 'text', text: 'Stored answer for the train.' });
    await chat.send('remember this');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    const chatUrl = page.url();

    await context.setOffline(true);
    await expect(page.getByTestId('connectivity')).toContainText('Offline');
    await page.reload();

    // The shell comes from the service worker; the chat from IndexedDB.
    await expect(page.getByTestId('connectivity')).toContainText('Offline');
    // (The link shows the session title, which may be generated; there is exactly one.)
    await expect(chat.sessionLinks()).toHaveCount(1);
    await chat.newChat();
    await chat.sessionLinks().first().click();
    await expect(page).toHaveURL(chatUrl);
    await expect(chat.userMessages()).toHaveText(['remember this']);
    await expect(chat.lastAnswer()).toContainText('Stored answer for the train.');

    // Everything cached came from Carrel's own origin: the app shell and hashed assets, no provider reply.
    const cachedUrls = await listCachedUrls(page);
    const appOrigin = new URL(page.url()).origin;
    expect(cachedUrls.length).toBeGreaterThan(5);
    expect(cachedUrls.filter((url) => new URL(url).origin !== appOrigin)).toEqual([]);
    const paths = cachedUrls.map((url) => new URL(url).pathname);
    expect(paths).toEqual(expect.arrayContaining(['/index.html', '/manifest.webmanifest']));
    expect(paths.some((path) => /^\/assets\/index-[\w-]+\.js$/.test(path))).toBe(true);
    expect(paths.some((path) => /^\/assets\/.*worker.*\.js$/.test(path))).toBe(true);
    expect(paths.filter((path) => path.startsWith('/v1'))).toEqual([]);
  });

  test('offline, a send fails clearly and loses nothing', async ({ seed, page, context, chat, llm }) => {
    await seed.provider({
      name: 'Mock OpenAI',
      baseUrl: `${llm.url}/v1`,
      apiKey: API_KEY,
      model: 'gpt-4o-mini',
    });
    llm.setScenario({ kind: 'text', text: 'Stored answer for the train.' });
    await chat.send('remember this');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    // Sending reaches no provider (127.0.0.1 is offline too) and says so.
    await context.setOffline(true);
    await expect(page.getByTestId('connectivity')).toContainText('Offline');
    await chat.send('are you there?');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'error');
    await expect(chat.lastAnswer()).toContainText(/offline/i);
    await expect(chat.userMessages()).toHaveText(['remember this', 'are you there?']);
    const offlineSends = llm
      .requests()
      .filter((r) => (JSON.stringify(r.body) ?? '').includes('are you there?'));
    expect(offlineSends).toEqual([]);

    // Nothing was lost: after coming back online the whole conversation is still stored.
    await context.setOffline(false);
    await page.reload();
    await expect(page.getByTestId('connectivity')).not.toContainText('Offline');
    await expect(chat.userMessages()).toHaveText(['remember this', 'are you there?']);
    await expect(chat.answers().first()).toContainText('Stored answer for the train.');
  });

  test('works offline: a stored project opens, its file reads in the viewer, its files and the chats are searched', async ({
    seed,
    page,
    context,
    chat,
    llm,
  }) => {
    await seed.provider({
      name: 'Mock OpenAI',
      baseUrl: `${llm.url}/v1`,
      apiKey: API_KEY,
      model: 'gpt-4o-mini',
    }, { open: '/#/settings' });
    expect(await waitForServiceWorker(page)).toBe('activated');
    // No embedding model here: the upload is indexed for keyword search without a download.
    await page.getByLabel('Allow downloading model files').uncheck();

    llm.setScenario({ kind: 'text', text: 'The lighthouse keeper rows out at dawn.' });
    await chat.newChat();
    await chat.send('who rows out at dawn?');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    const chatUrl = page.url();

    const project = new ProjectPage(page);
    await project.create('Train reading');
    const projectUrl = page.url();
    await project.upload([path.resolve('test/fixtures/documents/corpus/coffee.md')]);
    await expect(project.uploads().and(page.locator('[data-status="done"]'))).toHaveCount(1, {
      timeout: 30_000,
    });
    await expect(project.files().filter({ hasText: 'coffee.md' })).toContainText('tokens');

    await context.setOffline(true);
    await page.reload();
    await expect(page.getByTestId('connectivity')).toContainText('Offline');

    // The project and its file come from IndexedDB, the viewer from the cached app.
    await page.getByTestId('session-list').getByRole('link', { name: 'Train reading' }).click();
    await expect(page).toHaveURL(projectUrl);
    await expect(page.getByRole('heading', { name: 'Train reading', level: 1 })).toBeVisible();
    await project
      .files()
      .filter({ hasText: 'coffee.md' })
      .getByRole('button', { name: 'View coffee.md' })
      .click();
    await expect(project.viewer()).toContainText('Espresso needs a fine grind');
    await page.keyboard.press('Escape');
    await expect(project.viewer()).toBeHidden();

    // A project search runs on keywords alone (no model was ever loaded) and opens the passage.
    const passages = await project.searchFiles('fine grind');
    await expect(project.searchRetrieval()).toHaveAttribute('data-mode', 'keyword');
    await expect(project.searchRetrieval()).toHaveText(
      'Keyword search (BM25) only: the passages have no embeddings from the current model yet.',
    );
    await expect(passages.first()).toContainText('coffee.md');
    expect(await passages.first().locator('mark').allTextContents()).toEqual(expect.arrayContaining(['fine', 'grind']));
    await passages.first().getByRole('button', { name: /^Open passage in coffee\.md/ }).click();
    await expect(project.citedPassage()).toContainText('Espresso needs a fine grind');
    await page.keyboard.press('Escape');
    await expect(project.viewer()).toBeHidden();

    // Search across chats finds the answer's words and opens the chat.
    const shell = new ShellPage(page);
    const hits = await shell.search('lighthouse');
    await expect(hits).toHaveCount(1);
    await hits.first().click();
    await expect(page).toHaveURL(chatUrl);
    await expect(chat.userMessages()).toHaveText(['who rows out at dawn?']);
    await expect(chat.lastAnswer()).toContainText('The lighthouse keeper rows out at dawn.');
    await expect(page.getByTestId('connectivity')).toContainText('Offline');
  });

  test('works offline with an imported embedding model: the project search is hybrid', async ({
    page,
    context,
    settings,
  }) => {
    // Model import, WASM compile, ingest and embedding, twice a model load, on two busy cores:
    // 85 s in a CI run where the whole suite's tests took up to their limit.
    test.setTimeout(180_000);
    await settings.open();
    expect(await waitForServiceWorker(page)).toBe('activated');

    // The tiny test model, imported as the default model's folder (only its full-size ONNX file
    // exists). Imported files live in this browser's Cache Storage: nothing is downloaded.
    try {
      const embedding = new EmbeddingSettingsPage(page);
      await embedding.quantized().uncheck();
      await embedding.section().getByLabel('Model folder to import').setInputFiles(TINY_MODEL_FOLDER);
      await expect(embedding.status()).toHaveText(`Imported 4 files for ${DEFAULT_EMBEDDING_MODEL}.`);

      const project = new ProjectPage(page);
      await project.create('Kitchen');
      await project.upload(['coffee.md', 'sourdough.md', 'bicycle.md'].map((name) => path.resolve('test/fixtures/documents/corpus', name)));
      await expect(project.uploads().and(page.locator('[data-status="done"]'))).toHaveCount(3, { timeout: 30_000 });
      // The passages are embedded in the background after the upload: keywords alone until then.
      await project.searchFiles('espresso shot', { timeout: 30_000 });
      await expect(async () => {
        await project.searchBox().press('Enter');
        await expect(project.searchRetrieval()).toHaveAttribute('data-mode', 'hybrid', { timeout: 30_000 });
      }).toPass({ timeout: 60_000 });

      await context.setOffline(true);
      await page.reload();
      await expect(page.getByTestId('connectivity')).toContainText('Offline');
      await expect(page.getByRole('heading', { name: 'Kitchen', level: 1 })).toBeVisible();

      // Offline, a new agent worker loads the model from Cache Storage and embeds the query.
      const passages = await project.searchFiles('how long does an espresso shot take', { timeout: 30_000 });
      await expect(project.searchRetrieval()).toHaveAttribute('data-mode', 'hybrid');
      await expect(project.searchRetrieval()).toHaveText('Hybrid search: keywords (BM25) and embeddings.');
      await expect(passages.filter({ hasText: 'coffee.md' }).first()).toContainText('twenty five to thirty seconds');
      await passages
        .filter({ hasText: 'twenty five to thirty seconds' })
        .first()
        .getByRole('button', { name: /^Open passage in coffee\.md/ })
        .click();
      await expect(project.citedPassage()).toContainText('A double espresso uses eighteen grams of coffee');
      await page.keyboard.press('Escape');

    } finally {
      // The imported files sit under the hub's address, which the suite's same-origin cache
      // check would count as foreign: they go whatever the outcome.
      await page.evaluate(() => caches.delete('transformers-cache'));
    }
  });

  test('offers a new version and reloads only after the person accepts and the answer has finished', async ({
    seed,
    page,
    chat,
    llm,
  }) => {
    await seed.provider({
      name: 'Mock OpenAI',
      baseUrl: `${llm.url}/v1`,
      apiKey: API_KEY,
      model: 'gpt-4o-mini',
    });
    await waitForServiceWorker(page);
    // The app registers its worker on every load. The "deploy" below must come after that, or
    // the app's own registration of `/sw.js` lands after it and counts as yet another version.
    await page.addInitScript(() => {
      const container = navigator.serviceWorker;
      const register = container.register.bind(container);
      (window as unknown as { carrelRegistered?: Promise<unknown> }).carrelRegistered = new Promise(
        (registered) => {
          container.register = (...args) => {
            const registering = register(...args);
            registering.then(registered, registered);
            return registering;
          };
        },
      );
    });
    // A returning visit: the page starts under the installed worker, as after any deploy.
    await page.reload();
    await page.evaluate(
      () => (window as unknown as { carrelRegistered?: Promise<unknown> }).carrelRegistered,
    );
    // The page's clock goes on at its own pace, but can skip ahead (below: the deferred update's
    // checks for the end of the answer).
    await page.clock.install();
    // A marker that survives only as long as the page is not reloaded.
    await page.evaluate(
      () => ((window as unknown as { carrelMarker?: boolean }).carrelMarker = true),
    );
    // A reload in the middle of the check destroys the page's context: that also means "gone".
    const hasMarker = () =>
      page
        .evaluate(() => (window as unknown as { carrelMarker?: boolean }).carrelMarker === true)
        .catch(() => false);

    // "Deploy" a new version. The preview server serves one build, so the new version is the same
    // worker under a new script URL, which the browser installs beside the active one as an update.
    await page.evaluate(async () => {
      // Which worker took control of this page, kept past the reload that follows.
      navigator.serviceWorker.addEventListener('controllerchange', () => {
        sessionStorage.setItem('carrel-took-over', navigator.serviceWorker.controller?.scriptURL ?? 'none');
      });
      await navigator.serviceWorker.register('/sw.js?next-version', { scope: '/' });
    });
    const prompt = page.getByTestId('update-prompt');
    await expect(prompt).toContainText('A new version is ready.');
    expect(await hasMarker()).toBe(true);

    // Accepting while an answer streams defers the update until it ends.
    llm.setScenario({ kind: 'hang', text: 'A long answer that is still going' });
    await chat.send('keep talking');
    await expect(chat.lastAnswer()).toContainText('still going');
    await prompt.getByRole('button', { name: 'Reload' }).click();
    await expect(prompt).toContainText('Updating when the current answer finishes.');
    // Several of its checks for the end of the answer (every 500 ms) go by: no reload yet.
    await page.clock.runFor(2_000);
    await expect(prompt).toContainText('Updating when the current answer finishes.');
    expect(await hasMarker()).toBe(true);

    await chat.stop();
    await expect.poll(hasMarker, { timeout: 30_000 }).toBe(false);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'stopped');
    // The accepted version took control of the page, and only then did it reload. (What is
    // active afterwards says less: the reloaded app registers `/sw.js` again, which this
    // simulation counts as yet another version.)
    const tookOver = await page.evaluate(() => sessionStorage.getItem('carrel-took-over'));
    expect(tookOver).toMatch(/\/sw\.js\?next-version$/);
  });
});
