import path from 'node:path';
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { ProjectPage } from './pages/project-page';

const DOCUMENTS = path.resolve('test/fixtures/documents');
const fixture = (name: string): string => path.join(DOCUMENTS, name);

/** Light and dark, 390 px and 1280 px wide, under test-results/screenshots/. */
async function saveScreenshots(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, label] of [
      [1280, 'wide'],
      [390, 'narrow'],
    ] as const) {
      await page.setViewportSize({ width, height: 860 });
      await page.screenshot({ path: `test-results/screenshots/${name}-${scheme}-${label}.png` });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 860 });
}

test.describe('projects and attachments', () => {
  test.beforeEach(async ({ seed, page, llm }) => {
    await seed.provider({ name: 'Mock', baseUrl: `${llm.url}/v1`, apiKey: 'sk-projects', model: 'gpt-4o-mini' }, { open: '/#/settings' });
    await page.getByLabel('Allow downloading model files').uncheck();
  });

  test('a project is created, renamed, given instructions and files, and deleted keeping its chats', async ({
    page,
    chat,
    llm,
  }) => {
    const project = new ProjectPage(page);
    await project.create('Launch plan');
    await project.setInstructions('Answer as the launch coordinator.');
    await expect(project.settingsForm().getByText('Saved')).toBeVisible();

    await project.upload([fixture('minutes.docx'), fixture('encrypted.pdf'), fixture('pixel-art.png'), fixture('settings.json')]);
    await expect(project.uploads().and(page.locator('[data-status="working"]'))).toHaveCount(0, { timeout: 30_000 });
    await expect(project.uploads().filter({ hasText: 'minutes.docx' })).toContainText('tokens');
    await expect(project.uploads().filter({ hasText: 'encrypted.pdf' })).toHaveAttribute('data-status', 'failed');
    await expect(project.files().filter({ hasText: 'encrypted.pdf' })).toHaveAttribute('data-status', 'error');

    // The same bytes again: reported as a duplicate, not stored twice.
    await project.upload([fixture('minutes.docx')]);
    await expect(project.uploads().and(page.locator('[data-status="duplicate"]'))).toContainText('Already in this project as "minutes.docx"');
    await expect(project.files().filter({ hasText: 'minutes.docx' })).toHaveCount(1);

    await project.files().filter({ hasText: 'minutes.docx' }).getByRole('button', { name: 'View minutes.docx' }).click();
    await expect(project.viewer()).toContainText('Marta will write the migration guide');
    await saveScreenshots(page, 'file-viewer');
    await page.keyboard.press('Escape');

    await project.files().filter({ hasText: 'encrypted.pdf' }).getByRole('button', { name: 'Delete encrypted.pdf' }).click();
    await expect(project.files().filter({ hasText: 'encrypted.pdf' })).toHaveCount(0);
    await expect(project.fitMode()).toHaveText('All files in context');
    await saveScreenshots(page, 'project');

    // A chat in the project takes the project's instructions as its custom prompt.
    llm.setScenario({ kind: 'text', text: 'Noted.' });
    await project.startChat();
    await chat.send('What is the plan?');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete', { timeout: 20_000 });
    const body = llm.requests().find((r) => !r.isPreflight && r.path.endsWith('/chat/completions'))?.body;
    expect(JSON.stringify(body)).toContain('Answer as the launch coordinator.');
    await expect(page.getByTestId('session-list').getByText('Launch plan')).toBeVisible();

    await page.getByTestId('session-list').getByRole('link', { name: 'Launch plan' }).click();
    await page.getByRole('button', { name: 'Delete project…' }).click();
    const dialog = page.getByTestId('delete-project-dialog');
    await expect(dialog).toContainText('Its 3 files and their indexed passages are deleted with it.');
    await expect(dialog).toContainText('Its chat is kept, as an ordinary chat.');
    await dialog.getByRole('button', { name: 'Delete project' }).click();
    await expect(page.getByTestId('session-list').getByRole('link', { name: 'Launch plan' })).toHaveCount(0);
    await expect(chat.sessionLinks()).toHaveCount(1);
  });

  test('attachments show their tokens before sending and travel with the message', async ({ page, chat, llm }) => {
    await chat.newChat();
    await page.getByLabel('Attach files to the message').setInputFiles([fixture('corpus/coffee.md')]);
    const chip = page.getByTestId('attachment-chip');
    await expect(chip).toHaveAttribute('data-status', 'ready', { timeout: 20_000 });
    await expect(chip).toContainText(/\d+ tokens/);
    await saveScreenshots(page, 'attachments');

    llm.setScenario({ kind: 'text', text: 'Use a fine grind.' });
    await chat.send('How fine for espresso?');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete', { timeout: 20_000 });
    await expect(chip).toHaveCount(0);
    const body = llm.requests().find((r) => !r.isPreflight && r.path.endsWith('/chat/completions'))?.body;
    expect(JSON.stringify(body)).toContain('Espresso needs a fine grind');
  });

  test('a file too large for the selected model is refused before sending', async ({ page, chat, settings }) => {
    await settings.open();
    const card = settings.providerCard('Mock');
    await card.getByLabel('Context window for gpt-4o-mini').fill('1024');
    await card.getByRole('button', { name: 'Set', exact: true }).click();
    await expect(card.getByText('1,024 tokens')).toBeVisible();
    await chat.newChat();
    // About 1,500 tokens against an input budget of (1,024 − 512 reserved) × 0.95 = 486.
    const text = 'The harbour master logs every ship that enters the port before noon. '.repeat(100);
    await page
      .getByLabel('Attach files to the message')
      .setInputFiles([{ name: 'harbour.txt', mimeType: 'text/plain', buffer: Buffer.from(text) }]);
    await expect(page.getByTestId('attachment-refusal')).toContainText('The file "harbour.txt" has');
    await expect(page.getByTestId('attachment-refusal')).toContainText('(486 tokens)');
    await expect(page.getByTestId('attachment-refusal')).toContainText('more than this model can take');
    await chat.composer.fill('Summarise it');
    await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
    await page.getByRole('button', { name: 'Remove harbour.txt' }).click();
    await expect(page.getByTestId('attachment-refusal')).toHaveCount(0);
  });
});
