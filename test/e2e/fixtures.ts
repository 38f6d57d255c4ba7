import { test as base, expect } from '@playwright/test';
import { startMockLlm, type MockLlm } from '../mock-llm/server';
import { ChatPage } from './pages/chat-page';
import { SettingsPage } from './pages/settings-page';
import { SeedData } from './support/seed';
import { placesHolding, readStoredText } from './support/stored-text';

interface WorkerFixtures {
  /** One mock LLM server per Playwright worker; tests in a worker run one at a time. */
  mockLlm: MockLlm;
}

interface TestFixtures {
  llm: MockLlm;
  chat: ChatPage;
  settings: SettingsPage;
  /** Providers (and other preconditions) stored straight into IndexedDB, without the forms. */
  seed: SeedData;
  /** Automatic: fails the test when the page or a worker reported a Content-Security-Policy violation. */
  cspViolations: string[];
  /** Automatic: fails the test when Cache Storage holds anything from another origin. */
  sameOriginCaches: void;
  /**
   * Automatic, over the whole e2e suite: every API key the test stored
   * with a provider is a canary; after the test it must appear in no request to another URL
   * than its provider's, no request body, no console line, and nowhere in localStorage,
   * sessionStorage, Cache Storage or IndexedDB outside the `providers` table. (The build's
   * precached files are read by URL only here; reliability/key-hygiene.e2e.ts searches them too.)
   */
  keyHygiene: void;
}

/** Keys shorter than this are placeholders ('', 'bad-key') that could match anything. */
const MIN_CANARY_KEY_LENGTH = 8;

/** Chromium's console line for a blocked resource or script, in pages and workers. */
const CSP_CONSOLE_PATTERN = /Content Security Policy/i;

/** Name of the page binding the init script reports `securitypolicyviolation` events to. */
const CSP_REPORT_BINDING = '__carrelReportCspViolation';

export const test = base.extend<TestFixtures, WorkerFixtures>({
  mockLlm: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
    async ({}, use) => {
      const server = await startMockLlm();
      await use(server);
      await server.close();
    },
    { scope: 'worker' },
  ],
  llm: async ({ mockLlm }, use) => {
    mockLlm.reset();
    await use(mockLlm);
  },
  chat: async ({ page }, use) => {
    await use(new ChatPage(page));
  },
  settings: async ({ page }, use) => {
    await use(new SettingsPage(page));
  },
  seed: async ({ page }, use) => {
    await use(new SeedData(page));
  },
  cspViolations: [
    async ({ page }, use) => {
      const violations: string[] = [];
      // A context binding outlives reloads and navigations, unlike state kept in the page.
      await page.context().exposeBinding(CSP_REPORT_BINDING, (_source, report: string) => {
        violations.push(report);
      });
      await page.addInitScript((binding) => {
        document.addEventListener('securitypolicyviolation', (event) => {
          const report = (window as unknown as Record<string, (report: string) => void>)[binding];
          report?.(
            `${event.effectiveDirective} blocked ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`,
          );
        });
      }, CSP_REPORT_BINDING);
      // Page console events include dedicated workers' messages; src/boot/strict-csp.ts logs
      // violations there, since a worker's securitypolicyviolation event never reaches the page.
      const onConsole = (message: { type(): string; text(): string }): void => {
        if (message.type() === 'error' && CSP_CONSOLE_PATTERN.test(message.text()))
          violations.push(message.text());
      };
      page.on('console', onConsole);
      await use(violations);
      expect(violations, 'Content-Security-Policy violations').toEqual([]);
    },
    { auto: true },
  ],
  sameOriginCaches: [
    async ({ page, baseURL }, use) => {
      await use();
      const appOrigin = new URL(baseURL ?? '').origin;
      if (page.isClosed() || new URL(page.url()).origin !== appOrigin) return;
      const cachedUrls = await page.evaluate(async () => {
        if (!('caches' in window)) return [];
        const urls: string[] = [];
        for (const name of await caches.keys()) {
          const cache = await caches.open(name);
          for (const request of await cache.keys()) urls.push(request.url);
        }
        return urls;
      });
      expect(
        cachedUrls.filter((url) => new URL(url).origin !== appOrigin),
        'cross-origin entries in Cache Storage',
      ).toEqual([]);
    },
    { auto: true },
  ],
  keyHygiene: [
    async ({ page, baseURL, llm }, use) => {
      const consoleLines: string[] = [];
      page.on('console', (message) => consoleLines.push(message.text()));
      page.on('worker', (worker) => worker.on('console', (message) => consoleLines.push(message.text())));
      const requests: Array<{ url: string; text: string }> = [];
      page.context().on('request', (request) => {
        requests.push({
          url: request.url(),
          text: `${request.url()} ${JSON.stringify(request.headers())} ${request.postData() ?? ''}`,
        });
      });
      await use();
      const appOrigin = new URL(baseURL ?? '').origin;
      if (page.isClosed() || new URL(page.url()).origin !== appOrigin) return;
      const stored = await readStoredText(page);
      const canaries = stored.providers.filter((provider) => provider.apiKey.length >= MIN_CANARY_KEY_LENGTH);
      for (const { apiKey, baseUrl, keyOrigin } of canaries) {
        const providerBase = baseUrl.replace(/\/+$/, '');
        // A key may go to its provider's base URL, and only on the origin it was entered for.
        const isToProvider = (url: string): boolean =>
          (url === providerBase || url.startsWith(`${providerBase}/`)) && (keyOrigin === undefined || new URL(url).origin === keyOrigin);
        const places: Record<string, string> = {
          localStorage: stored.localStorage,
          sessionStorage: stored.sessionStorage,
          'Cache Storage': stored.cacheStorage,
          console: consoleLines.join('\n'),
          'requests to other URLs': requests.filter((request) => !isToProvider(request.url)).map((request) => request.text).join('\n'),
          'request bodies the mock server received': llm.requests().map((request) => request.rawBody).join('\n'),
          'requests the mock web pages received': JSON.stringify(llm.web.requests()),
          ...Object.fromEntries(Object.entries(stored.tables).map(([name, text]) => [`IndexedDB ${name}`, text])),
        };
        expect(placesHolding(places, apiKey), `places holding the API key of ${providerBase}`).toEqual([]);
      }
    },
    { auto: true },
  ],
});

export { expect };
