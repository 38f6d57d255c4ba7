import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect, test } from '../fixtures';
import { InspectorPage } from '../pages/inspector-page';
import { SettingsStoragePage } from '../pages/settings-storage-page';
import { SettingsToolsPage } from '../pages/settings-tools-page';
import { ShellPage } from '../pages/shell-page';

/**
 * Suite 10 (issue 12): a canary API key goes in through Settings, the app is used (a chat
 * answer, a tool call, the inspector, an export without keys), then every place a key could
 * leak to is searched for it. Only the providers table and the requests to the provider may
 * hold it.
 */
test.describe('API key hygiene', () => {
  test('the key appears nowhere but in the providers table and the requests to the provider', async ({ page, settings, chat, llm }) => {
    const canary = `sk-CANARY-${randomUUID()}`;
    const providerUrl = `${llm.url}/v1`;
    const consoleLines: string[] = [];
    page.on('console', (message) => consoleLines.push(message.text()));
    page.on('worker', (worker) => worker.on('console', (message) => consoleLines.push(message.text())));
    // Every request the page or its workers make, except to the provider's own endpoint.
    const otherRequests: Array<{ url: string; headers: string; body: string }> = [];
    page.context().on('request', (request) => {
      if (request.url().startsWith(`${providerUrl}/`)) return;
      otherRequests.push({
        url: request.url(),
        headers: JSON.stringify(request.headers()),
        body: request.postData() ?? '',
      });
    });

    await settings.open();
    await settings.addProvider({ kind: 'openai', name: 'Canary provider', baseUrl: providerUrl, apiKey: canary, model: 'gpt-4o-mini' });
    await new SettingsToolsPage(page).configureWebTools({ shouldAllowPrivateNetwork: true });

    // A turn with a tool call that opens a page, then a plain chat answer. The default
    // scenario also answers the title request, which would otherwise take a queued one.
    llm.setScenario({ kind: 'text', text: 'Llamas hum.' });
    llm.queueScenarios(
      { kind: 'tool-calls', calls: [{ name: 'open_url', arguments: { urls: [`${llm.url}/web/pages/llamas`] } }] },
      { kind: 'text', text: 'The page says llamas live long [1].' },
    );
    await chat.newChat();
    await chat.send('Tell me about llamas from the llama page');
    await expect(chat.lastAnswer()).toContainText('llamas live long', { timeout: 20_000 });
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await expect(chat.lastAnswer().locator('[data-testid="tool-block"][data-tool="open_url"]')).toHaveAttribute('data-status', 'complete');
    await chat.send('And do they sing?');
    await expect(chat.lastAnswer()).toContainText('Llamas hum.', { timeout: 20_000 });
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    // The inspector, both views.
    const inspector = new InspectorPage(page);
    await new ShellPage(page).openPanel();
    await inspector.show('Last request');
    await expect(inspector.messages().first()).toBeVisible({ timeout: 10_000 });
    await inspector.show('Next request');
    await expect(inspector.messages().first()).toBeVisible({ timeout: 10_000 });
    const inspectorText = await inspector.root.innerText();

    // Export everything, keys left out.
    await settings.open();
    const download = await new SettingsStoragePage(page).exportEverything({ includeApiKeys: false });
    const exported = await readFile(await download.path(), 'utf8');
    expect(exported, 'the export holds the chat').toContain('Tell me about llamas');

    const stored = await page.evaluate(async () => {
      const local = JSON.stringify(Object.entries(localStorage));
      const session = JSON.stringify(Object.entries(sessionStorage));
      const cached: string[] = [];
      if ('caches' in window) {
        for (const name of await caches.keys()) {
          const cache = await caches.open(name);
          for (const request of await cache.keys()) {
            const response = await cache.match(request);
            cached.push(request.url, (await response?.text()) ?? '');
          }
        }
      }
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('carrel');
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(new Error(String(open.error)));
      });
      const tables: Record<string, string> = {};
      let providerRows = '';
      for (const name of [...db.objectStoreNames]) {
        const rows = await new Promise<unknown[]>((resolve, reject) => {
          const request = db.transaction(name, 'readonly').objectStore(name).getAll();
          request.onsuccess = () => resolve(request.result);
          request.onerror = () => reject(new Error(String(request.error)));
        });
        // Blobs and typed arrays stringify to {}: their text is read too.
        const texts = await Promise.all(rows.map(async (row) => JSON.stringify(row) + (await readBlobs(row))));
        if (name === 'providers') providerRows = texts.join('\n');
        else tables[name] = texts.join('\n');
      }
      db.close();
      return { local, session, cached: cached.join('\n'), tables, providerRows };

      async function readBlobs(value: unknown): Promise<string> {
        if (value instanceof Blob) return value.text();
        if (Array.isArray(value)) return (await Promise.all(value.map(readBlobs))).join('');
        if (value !== null && typeof value === 'object')
          return (await Promise.all(Object.values(value).map(readBlobs))).join('');
        return '';
      }
    });

    // The scan is only meaningful if the key did go where it belongs.
    expect(stored.providerRows, 'the key is stored with its provider').toContain(canary);
    const providerRequests = llm.requests().filter((request) => request.path.startsWith('/v1/') && !request.isPreflight);
    expect(providerRequests.length).toBeGreaterThanOrEqual(3);
    expect(providerRequests.every((request) => request.headers['authorization'] === `Bearer ${canary}`)).toBe(true);

    const places: Record<string, string> = {
      localStorage: stored.local,
      sessionStorage: stored.session,
      'Cache Storage': stored.cached,
      console: consoleLines.join('\n'),
      export: exported,
      inspector: inspectorText,
      'requests to other hosts': JSON.stringify(otherRequests),
      'requests the mock web pages received': JSON.stringify(llm.web.requests()),
      'bodies sent to the provider': JSON.stringify(providerRequests.map((request) => request.rawBody)),
      ...Object.fromEntries(Object.entries(stored.tables).map(([name, text]) => [`IndexedDB ${name}`, text])),
    };
    const leaks = Object.entries(places).flatMap(([place, text]) => (text.includes(canary) ? [place] : []));
    expect(leaks, 'places holding the API key').toEqual([]);
    expect(otherRequests.length, 'the scan saw the app load').toBeGreaterThan(0);
    expect(llm.web.requests().some((request) => request.path === '/web/pages/llamas')).toBe(true);
  });
});
