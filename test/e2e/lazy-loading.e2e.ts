import type { Page, Route } from '@playwright/test';
import { expect, test } from './fixtures';

/**
 * The startup script leaves out the Markdown renderer, KaTeX and every screen and
 * dialog not shown first; these load on demand. Here the chunks are held back or refused, to
 * show what a person sees meanwhile and when one cannot load. (Sizes are measured by
 * test/bench/startup.bench.ts, not here.)
 */

// The service worker would answer from its precache, out of reach of page.route.
test.use({ serviceWorkers: 'block' });

/** Holds every request for a chunk until `release()`, so the state before it arrives can be seen. */
async function holdChunk(page: Page, pattern: string): Promise<{ release: () => void }> {
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(pattern, async (route: Route) => {
    await released;
    await route.continue();
  });
  return { release };
}

test.describe('code loaded on demand', () => {
  test('an answer reads as plain text until the renderer arrives, and shows TeX until KaTeX does', async ({
    seed,
    page,
    chat,
    llm,
  }) => {
    const markdown = await holdChunk(page, '**/assets/markdown-*.js');
    const katex = await holdChunk(page, '**/assets/math-katex-*.js');
    await seed.provider({ name: 'Mock', baseUrl: `${llm.url}/v1`, apiKey: 'sk-lazy-e2e', model: 'gpt-4o-mini' }, { open: '/#/settings' });
    llm.queueScenarios({ kind: 'text', text: 'Euler wrote **this**: $e^{i\\pi}+1=0$' });
    await chat.newChat();
    await chat.send('show me math');

    const answer = chat.lastAnswer();
    await expect(answer).toHaveAttribute('data-status', 'complete');
    await expect(answer.locator('.markdown-pending')).toHaveText('Euler wrote **this**: $e^{i\\pi}+1=0$');

    markdown.release();
    await expect(answer.locator('strong')).toHaveText('this');
    await expect(answer.locator('.markdown-pending')).toHaveCount(0);
    await expect(answer.locator('.math-pending')).toHaveText('e^{i\\pi}+1=0');
    await expect(answer.locator('.katex')).toHaveCount(0);

    katex.release();
    await expect(answer.locator('.katex')).toHaveCount(1);
    await expect(answer.locator('.math-pending')).toHaveCount(0);
  });

  test('a screen that cannot load says so and offers a reload, which brings it', async ({ page }) => {
    await page.route('**/assets/SettingsScreen-*.js', (route) => route.abort('internetdisconnected'));
    await page.goto('/');
    await page.getByRole('navigation', { name: 'Chats' }).getByRole('link', { name: 'Settings' }).click();

    const failure = page.getByTestId('lazy-load-error');
    await expect(failure).toContainText('Could not load Settings');
    await expect(page.getByRole('heading', { name: 'Settings', exact: true })).toHaveCount(0);

    await page.unroute('**/assets/SettingsScreen-*.js');
    await failure.getByRole('button', { name: 'Reload Carrel' }).click();
    await expect(page.getByRole('heading', { name: 'Settings', exact: true })).toBeVisible();
    await expect(failure).toHaveCount(0);
  });

  test('a dialog that cannot load is reported in a toast, and opens on the next try', async ({ page }) => {
    await page.route('**/assets/ShortcutsSheet-*.js', (route) => route.abort('internetdisconnected'));
    await page.goto('/');
    const openShortcuts = page.getByRole('button', { name: 'Keyboard shortcuts' });
    await openShortcuts.click();

    await expect(page.getByTestId('toast').filter({ hasText: 'Could not show the keyboard shortcuts' })).toBeVisible();
    await expect(page.getByTestId('shortcuts-sheet')).toHaveCount(0);

    await page.unroute('**/assets/ShortcutsSheet-*.js');
    await openShortcuts.click();
    await expect(page.getByTestId('shortcuts-sheet')).toBeVisible();
  });
});
