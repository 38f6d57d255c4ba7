import type { Page } from '@playwright/test';

/** Playwright's stand-in for `register` when a context blocks service workers logs this. */
const BLOCKED_REGISTER_TEXT = 'blocked by Playwright';

/**
 * Resolves once a service worker is activated and controls the page (first install included).
 * Service workers are blocked unless the test file allows them (playwright.config.ts): then this
 * fails at once with what to add, rather than waiting out the test's time limit.
 */
export async function waitForServiceWorker(page: Page): Promise<string> {
  const isBlocked = await page.evaluate(
    (text) => {
      const register: unknown = Object.getOwnPropertyDescriptor(ServiceWorkerContainer.prototype, 'register')?.value;
      return typeof register !== 'function' || Function.prototype.toString.call(register).includes(text);
    },
    BLOCKED_REGISTER_TEXT,
  );
  if (isBlocked)
    throw new Error("Service workers are blocked in this test: add test.use({ serviceWorkers: 'allow' }) to its file or describe block.");
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    const worker = registration.active;
    if (worker && worker.state !== 'activated') {
      await new Promise((resolve) =>
        worker.addEventListener('statechange', resolve, { once: true }),
      );
    }
    if (!navigator.serviceWorker.controller) {
      await new Promise((resolve) =>
        navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
      );
    }
    return registration.active?.state ?? 'none';
  });
}
