import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { EmbeddingSettingsPage } from './pages/embedding-settings-page';
import { ProjectPage } from './pages/project-page';

/**
 * Embeddings in Chromium through the real transformers.js path: the tiny BERT-shaped model in
 * test/fixtures/models/carrel/tiny-embedder, served by the mock server under `/models/` as a
 * self-hosted model folder on another origin, loaded by the embedding worker with ONNX Runtime's
 * WASM files from the app itself.
 */

const TINY_MODEL_ID = 'carrel/tiny-embedder';
const CORPUS = path.resolve('test/fixtures/documents/corpus');
/** About 500 tokens: more than 60% of a 1,024-token window's input, so the project is searched. */
const FILES = ['sourdough.md', 'bicycle.md', 'coffee.md'].map((name) => path.join(CORPUS, name));
const SMALL_MODEL = 'tiny-window';
/** transformers.js v2's Cache Storage, where model files stay for offline use. */
const MODEL_CACHE = 'transformers-cache';

/**
 * The model picker offers only the catalogue's models (and the stored one), so the test model is
 * chosen the way an older version or an import would leave it: in the settings table. The full
 * (not quantized) ONNX file is the only one the fixture has.
 */
async function storeTinyModelChoice(page: Page): Promise<void> {
  await page.evaluate(async (modelId) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open('carrel');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('could not open the database'));
    });
    await new Promise<void>((resolve, reject) => {
      const transaction = db.transaction('settings', 'readwrite');
      transaction.objectStore('settings').put({
        key: 'embeddingSettings',
        value: { modelId, isQuantized: false, source: { kind: 'hub' }, canDownload: true },
        updatedAt: Date.now(),
      });
      transaction.oncomplete = () => resolve();
      transaction.onerror = () =>
        reject(transaction.error ?? new Error('could not store the setting'));
    });
    db.close();
  }, TINY_MODEL_ID);
}

async function listModelCache(page: Page): Promise<string[]> {
  return page.evaluate(async (name) => {
    const cache = await caches.open(name);
    return (await cache.keys()).map((request) => request.url);
  }, MODEL_CACHE);
}

test.describe('embeddings in the browser', () => {
  test('a self-hosted model downloads with progress and embeds uploaded project files', async ({
    seed,
    page,
    settings,
    llm,
  }) => {
    await seed.provider({
      name: 'Small',
      baseUrl: `${llm.url}/v1`,
      apiKey: 'sk-embed',
      model: SMALL_MODEL,
    }, { open: '/#/settings' });
    const card = settings.providerCard('Small');
    await card.getByLabel(`Context window for ${SMALL_MODEL}`).fill('1024');
    await card.getByRole('button', { name: 'Set', exact: true }).click();
    await expect(card.getByText('1,024 tokens')).toBeVisible();

    await storeTinyModelChoice(page);
    await page.reload();
    const embedding = new EmbeddingSettingsPage(page);
    await expect(embedding.model()).toHaveValue(TINY_MODEL_ID);
    await expect(embedding.quantized()).not.toBeChecked();
    await embedding.useSelfHosted(`${llm.url}/models/`);
    await expect(embedding.downloads()).toBeChecked();

    // Held at the weights (the file people wait for), the download is visibly under way and
    // names the file; released, it completes.
    const release = llm.models.hold('onnx/model.onnx');
    await embedding.downloadNow();
    await expect(embedding.progress()).toBeVisible();
    await expect(embedding.section()).toContainText('onnx/model.onnx');
    release();
    // The preview server makes the page cross-origin isolated, so ONNX Runtime starts one thread
    // per core (at most four) under the app's CSP; the count shown is the one it runs with.
    const { isIsolated, cores } = await page.evaluate(() => ({
      isIsolated: crossOriginIsolated,
      cores: navigator.hardwareConcurrency,
    }));
    expect(isIsolated).toBe(true);
    const threads = Math.min(4, cores);
    await expect(embedding.status()).toHaveText(
      `${TINY_MODEL_ID} is ready (WebAssembly, ${threads} thread${threads === 1 ? '' : 's'}).`,
      { timeout: 30_000 },
    );
    await expect(embedding.progress()).toHaveCount(0);
    const modelFolder = `/models/${TINY_MODEL_ID}/`;
    expect(llm.models.served()).toEqual(
      expect.arrayContaining(
        ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'].map(
          (file) => modelFolder + file,
        ),
      ),
    );

    const project = new ProjectPage(page);
    await project.create('Kitchen and bike');
    await project.chooseModel(SMALL_MODEL, 'Small');
    await project.upload(FILES);
    await expect(project.uploads().and(page.locator('[data-status="done"]'))).toHaveCount(
      FILES.length,
      { timeout: 30_000 },
    );
    await expect(project.fit()).toHaveAttribute('data-mode', 'search');
    await expect(project.searchMode()).toHaveText('Hybrid search: keywords and embeddings.', {
      timeout: 20_000,
    });
    await expect(project.searchMode()).not.toContainText('Keyword search only');

    // The model's files are cached under their self-hosted address, for offline use. That origin
    // is the mock server's, not the app's; the suite's same-origin cache check guards against
    // provider replies, so this test's model cache is removed once checked.
    const cached = await listModelCache(page);
    expect(cached).toEqual(expect.arrayContaining([`${llm.url}${modelFolder}onnx/model.onnx`]));
    expect(cached.filter((url) => !url.startsWith(`${llm.url}/models/`))).toEqual([]);
    await page.evaluate((name) => caches.delete(name), MODEL_CACHE);
  });

  test("the model's download and the embedding of a file each show a bar and stop on Cancel", async ({
    page,
    settings,
    llm,
  }) => {
    // Model load, WASM compile, ingest and embedding on a busy two-core machine.
    test.setTimeout(90_000);
    await settings.open();
    await storeTinyModelChoice(page);
    await page.reload();
    const embedding = new EmbeddingSettingsPage(page);
    await expect(embedding.model()).toHaveValue(TINY_MODEL_ID);
    await embedding.useSelfHosted(`${llm.url}/models/`);

    // Held at the weights, the download is cancelled: the request is dropped, the bar goes and
    // the status says how to start again.
    const aborted: string[] = [];
    page.context().on('requestfailed', (request) => aborted.push(request.url()));
    const release = llm.models.hold('onnx/model.onnx');
    await embedding.downloadNow();
    await expect(embedding.progress()).toBeVisible();
    await expect(embedding.section()).toContainText('onnx/model.onnx');
    await embedding.section().scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/screenshots/progress-embedding-model.png' });
    await embedding.section().getByRole('button', { name: 'Cancel' }).click();
    await expect(embedding.status()).toHaveText('The model download was cancelled. "Download now" starts it again.');
    await expect(embedding.progress()).toHaveCount(0);
    await expect.poll(() => aborted.some((url) => url.endsWith(`/models/${TINY_MODEL_ID}/onnx/model.onnx`))).toBe(true);
    release();
    await embedding.downloadNow();
    await expect(embedding.status()).toContainText(`${TINY_MODEL_ID} is ready`, { timeout: 30_000 });

    // A long file: its passages are embedded batch by batch under a bar with its Cancel.
    const project = new ProjectPage(page);
    await project.create('Long notes');
    const sections = Array.from(
      { length: 1_500 },
      (_, i) => `## Note ${i}\n\n${`Entry ${i} of the kitchen log: the starter was fed, the oven was warmed and the loaf rested. `.repeat(6)}`,
    ).join('\n\n');
    await page.getByLabel('Add files to the project').setInputFiles({ name: 'log.md', mimeType: 'text/markdown', buffer: Buffer.from(sections) });
    const row = project.uploads().filter({ hasText: 'log.md' });
    await expect(row.getByTestId('upload-stage')).toHaveText(/^Embedding [\d,]+ of [\d,]+ passages$/, { timeout: 30_000 });
    await expect(row.getByRole('progressbar')).toBeVisible();
    await row.scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/screenshots/progress-embedding-passages.png' });
    await row.getByRole('button', { name: 'Cancel log.md' }).click();
    // The file stays, found by keyword; the row says how far the embedding got.
    await expect(row).toHaveAttribute('data-status', 'done');
    const settled = (await row.textContent()) ?? '';
    const counts = /Embedding cancelled \(([\d,]+) of ([\d,]+) embedded\)/.exec(settled) ?? /Embedding cancelled \((none) embedded\)/.exec(settled);
    expect(counts, settled).not.toBeNull();
    const [embedded, total] = [counts?.[1], counts?.[2]].map((figure) => Number((figure ?? '0').replace(/,/g, '').replace('none', '0')));
    if (total !== undefined && total > 0) expect(embedded).toBeLessThan(total);
    await expect(project.files().filter({ hasText: 'log.md' })).toContainText('tokens');
    await page.evaluate((name) => caches.delete(name), MODEL_CACHE);
  });
});
