import { test as base, expect } from '@playwright/test';
import { startMockLlm, type MockLlm } from '../mock-llm/server';
import { ChatPage } from './pages/chat-page';
import { SettingsPage } from './pages/settings-page';

interface WorkerFixtures {
  /** One mock LLM server per Playwright worker; tests in a worker run one at a time. */
  mockLlm: MockLlm;
}

interface TestFixtures {
  llm: MockLlm;
  chat: ChatPage;
  settings: SettingsPage;
  /** Automatic: fails the test when the page or a worker reported a Content-Security-Policy violation. */
  cspViolations: string[];
  /** Automatic: fails the test when Cache Storage holds anything from another origin. */
  sameOriginCaches: void;
}

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
      // Page console events include dedicated workers' messages; src/pwa/strict-csp.ts logs
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
});

export { expect };
