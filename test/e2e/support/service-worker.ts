import type { Page } from '@playwright/test';

/** Resolves once a service worker is activated and controls the page (first install included). */
export async function waitForServiceWorker(page: Page): Promise<string> {
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
