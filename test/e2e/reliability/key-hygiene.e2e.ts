import type { Page } from '@playwright/test';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expect, test } from '../fixtures';
import type { MockLlm } from '../../mock-llm/server';
import { InspectorPage } from '../pages/inspector-page';
import type { SettingsPage } from '../pages/settings-page';
import { SettingsStoragePage } from '../pages/settings-storage-page';
import { SettingsToolsPage } from '../pages/settings-tools-page';
import { ShellPage } from '../pages/shell-page';
import { placesHolding, readStoredText } from '../support/stored-text';

/**
 * A canary API key goes in through Settings, the app is used, then every place a key could leak
 * to is searched for it. Only the providers table and the requests to the provider may hold it.
 * Every other e2e test runs the same scan on the keys it configured (the `keyHygiene` fixture in
 * ../fixtures.ts); these add a tool call, the inspector, an export without keys and the
 * precached build files. Two tests, so each stays well inside its time limit.
 */
// The precached build files are among the places searched: the service worker must store them.
test.use({ serviceWorkers: 'allow' });

test.describe('API key hygiene', () => {
  /** Sets up a provider with a fresh canary key and records what could leak it. */
  async function withCanaryProvider(page: Page, settings: SettingsPage, llm: MockLlm) {
    const canary = `sk-CANARY-${randomUUID()}`;
    const providerUrl = `${llm.url}/v1`;
    const consoleLines: string[] = [];
    page.on('console', (message) => consoleLines.push(message.text()));
    page.on('worker', (worker) => worker.on('console', (message) => consoleLines.push(message.text())));
    // Every request the page or its workers make, except to the provider's own endpoint.
    const otherRequests: Array<{ url: string; headers: string; body: string }> = [];
    page.context().on('request', (request) => {
      if (request.url().startsWith(`${providerUrl}/`)) return;
      otherRequests.push({ url: request.url(), headers: JSON.stringify(request.headers()), body: request.postData() ?? '' });
    });
    await settings.open();
    await settings.addProvider({ kind: 'openai', name: 'Canary provider', baseUrl: providerUrl, apiKey: canary, model: 'gpt-4o-mini' });

    /** Searches every place but the provider's own table and requests; returns those holding the key. */
    async function placesWithKey(extra: Record<string, string>): Promise<string[]> {
      const stored = await readStoredText(page, { precacheNeedle: canary });
      // The scan is only meaningful if the key did go where it belongs.
      expect(stored.providerRows, 'the key is stored with its provider').toContain(canary);
      const providerRequests = llm.requests().filter((request) => request.path.startsWith('/v1/') && !request.isPreflight);
      expect(providerRequests.length).toBeGreaterThanOrEqual(1);
      expect(providerRequests.every((request) => request.headers['authorization'] === `Bearer ${canary}`)).toBe(true);
      expect(otherRequests.length, 'the scan saw the app load').toBeGreaterThan(0);
      return placesHolding(
        {
          ...extra,
          localStorage: stored.localStorage,
          sessionStorage: stored.sessionStorage,
          'Cache Storage': stored.cacheStorage,
          console: consoleLines.join('\n'),
          'requests to other hosts': JSON.stringify(otherRequests),
          'requests the mock web pages received': JSON.stringify(llm.web.requests()),
          'bodies sent to the provider': JSON.stringify(providerRequests.map((request) => request.rawBody)),
          ...Object.fromEntries(Object.entries(stored.tables).map(([name, text]) => [`IndexedDB ${name}`, text])),
        },
        canary,
      );
    }
    return { placesWithKey };
  }

  test('a turn with a tool call, and the inspector, leave the key only with its provider', async ({ page, settings, chat, llm }) => {
    const { placesWithKey } = await withCanaryProvider(page, settings, llm);
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
    await expect(inspector.messages().first()).toBeVisible({ timeout: 30_000 });
    await inspector.show('Next request');
    await expect(inspector.messages().first()).toBeVisible({ timeout: 30_000 });
    const inspectorText = await inspector.root.innerText();

    expect(await placesWithKey({ inspector: inspectorText }), 'places holding the API key').toEqual([]);
    expect(llm.web.requests().some((request) => request.path === '/web/pages/llamas')).toBe(true);
  });

  test('an export without keys holds no key', async ({ page, settings, chat, llm }) => {
    const { placesWithKey } = await withCanaryProvider(page, settings, llm);
    llm.setScenario({ kind: 'text', text: 'Llamas hum.' });
    await chat.newChat();
    await chat.send('Tell me about llamas');
    await expect(chat.lastAnswer()).toContainText('Llamas hum.', { timeout: 20_000 });
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    await settings.open();
    const download = await new SettingsStoragePage(page).exportEverything({ includeApiKeys: false });
    const exported = await readFile(await download.path(), 'utf8');
    expect(exported, 'the export holds the chat').toContain('Tell me about llamas');

    expect(await placesWithKey({ export: exported }), 'places holding the API key').toEqual([]);
  });
});
