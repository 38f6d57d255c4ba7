import { mkdir } from 'node:fs/promises';
import { expect, test } from './fixtures';
import { readStoredSetting } from './support/stored-text';

const API_KEY = 'sk-e2e-settings-key';
const SCREENSHOT_DIR = 'test-results/screenshots';

test.describe('Settings', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.provider({ kind: 'openai', name: 'Mock OpenAI', baseUrl: `${llm.url}/v1`, apiKey: API_KEY, model: 'gpt-4o-mini' }, { open: '/#/settings' });
  });

  test('an edited system prompt is sent with the next message; Reset brings back the default', async ({ page, settings, chat, llm }) => {
    const editor = page.getByLabel('Default system prompt');
    const defaultPrompt = await editor.inputValue();
    expect(defaultPrompt.length).toBeGreaterThan(20);
    await expect(page.getByText('{{CURRENT_DATETIME}}')).toBeVisible();

    await editor.fill('You are a pirate. Always answer like one.');
    await page.getByRole('button', { name: 'Save prompt' }).click();
    await expect(page.getByText('Saved: the next message uses this prompt.')).toBeVisible();

    llm.queueScenarios({ kind: 'text', text: 'Arr!' });
    await chat.newChat();
    await chat.send('hi');
    await expect(chat.lastAnswer()).toContainText('Arr!');
    const request = await llm.waitForRequest();
    const body = request.body as { messages: Array<{ role: string; content: unknown }> };
    expect(JSON.stringify(body.messages[0])).toContain('You are a pirate.');

    await settings.open();
    await expect(page.getByLabel('Default system prompt')).toHaveValue('You are a pirate. Always answer like one.');
    await page.getByRole('button', { name: 'Reset to default' }).click();
    await expect(page.getByLabel('Default system prompt')).toHaveValue(defaultPrompt);
    await page.reload();
    await expect(page.getByLabel('Default system prompt')).toHaveValue(defaultPrompt);
  });

  test('the theme switches at once and is kept after a reload', async ({ page }) => {
    const html = page.locator('html');
    await expect(html).not.toHaveAttribute('data-theme', /./);
    await page.getByRole('radio', { name: 'Dark' }).check();
    await expect(html).toHaveAttribute('data-theme', 'dark');
    const darkBackground = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    await page.getByRole('radio', { name: 'Light' }).check();
    await expect(html).toHaveAttribute('data-theme', 'light');
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor)).not.toBe(darkBackground);
    await page.getByRole('radio', { name: 'Dark' }).check();
    await page.reload();
    await expect(html).toHaveAttribute('data-theme', 'dark');
    await page.getByRole('radio', { name: 'System' }).check();
    await expect(html).not.toHaveAttribute('data-theme', /./);
  });

  test('a new chat starts with the default model chosen in Settings', async ({ page, settings, chat, llm }) => {
    await settings.addProvider({ kind: 'openai', name: 'Second mock', baseUrl: `${llm.url}/v1`, apiKey: API_KEY, model: 'gpt-4.1-mini' });
    await page.getByLabel('Default model for new chats').selectOption({ label: 'gpt-4.1-mini · Second mock' });
    // Stored before the reload: a reload in the same moment would cut the write off.
    await expect.poll(() => readStoredSetting(page, 'defaultModel')).toMatchObject({ modelId: 'gpt-4.1-mini' });
    await page.reload();
    await expect(page.getByLabel('Default model for new chats')).toHaveValue(/gpt-4\.1-mini/);

    llm.queueScenarios({ kind: 'text', text: 'From the default model.' });
    await chat.newChat();
    await chat.send('which model?');
    await expect(chat.lastAnswer()).toContainText('From the default model.');
    const request = await llm.waitForRequest();
    expect((request.body as { model: string }).model).toBe('gpt-4.1-mini');
  });

  test('the keyboard shortcuts sheet lists the shortcuts and closes with Escape', async ({ page }) => {
    await page.getByRole('button', { name: 'Show keyboard shortcuts' }).click();
    const sheet = page.getByTestId('shortcuts-sheet');
    await expect(sheet).toBeVisible();
    for (const action of ['Search chats', 'New chat', 'Stop the answer', 'Edit your last message']) {
      await expect(sheet).toContainText(action);
    }
    await page.keyboard.press('Escape');
    await expect(sheet).toHaveCount(0);
  });

  test('a provider can be edited without showing its key, and removed', async ({ page, settings }) => {
    await page.getByRole('button', { name: 'Edit Mock OpenAI' }).click();
    const form = page.getByRole('form', { name: 'Edit Mock OpenAI' });
    await expect(form.getByLabel('API key')).toHaveValue('');
    await form.getByLabel('Name').fill('Renamed OpenAI');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect(settings.providerCard('Renamed OpenAI')).toBeVisible();
    await expect(settings.providerCard('Renamed OpenAI').getByTestId('masked-key')).toHaveText('sk-e••••-key');
    await page.getByRole('button', { name: 'Remove Renamed OpenAI' }).click();
    await expect(page.getByTestId('provider-list')).toHaveCount(0);
  });

  test('fits a phone and a desktop in light and dark: nothing scrolls sideways or is cut off, and the theme applies', async ({ page }) => {
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    const backgrounds = new Map<string, string>();
    for (const theme of ['Light', 'Dark'] as const) {
      await page.getByRole('radio', { name: theme }).check();
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme.toLowerCase());
      backgrounds.set(theme, await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor));
      for (const [label, width] of [
        ['narrow', 390],
        ['wide', 1280],
      ] as const) {
        await page.setViewportSize({ width, height: 900 });
        for (const section of ['Settings', 'Web tools', 'Storage']) {
          await page.getByRole('heading', { name: section, exact: true }).evaluate((heading) => heading.scrollIntoView());
          // Kept for a person to look at; the assertions below are what the test relies on.
          await page.screenshot({ path: `${SCREENSHOT_DIR}/settings-${theme.toLowerCase()}-${label}-${section.replace(' ', '-').toLowerCase()}.png` });
        }
        const layout = await page.evaluate(() => {
          const viewport = document.documentElement.clientWidth;
          const cutOff = [...document.querySelectorAll('main button, main input, main select, main textarea, main h2, main h3')]
            .filter((element) => element.getClientRects().length > 0)
            .filter((element) => {
              const rect = element.getBoundingClientRect();
              return rect.left < -1 || rect.right > viewport + 1;
            })
            .map((element) => `${element.tagName.toLowerCase()} "${(element.textContent || element.getAttribute('aria-label') || '').trim().slice(0, 40)}"`);
          return { pageWidth: document.documentElement.scrollWidth, viewport, cutOff };
        });
        expect(layout.pageWidth, `${theme} ${label}: the page scrolls sideways`).toBeLessThanOrEqual(layout.viewport);
        expect(layout.cutOff, `${theme} ${label}: controls outside the screen`).toEqual([]);
      }
    }
    expect(backgrounds.get('Light')).not.toBe(backgrounds.get('Dark'));
    await page.getByRole('radio', { name: 'System' }).check();
    await expect(page.locator('html')).not.toHaveAttribute('data-theme', /./);
  });
});
