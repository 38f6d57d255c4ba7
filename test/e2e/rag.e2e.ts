import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import path from 'node:path';
import { expect, test } from './fixtures';
import { ProjectPage } from './pages/project-page';

const DOCUMENTS = path.resolve('test/fixtures/documents');
const CORPUS = path.join(DOCUMENTS, 'corpus');
/** Markdown, PDF and DOCX: about 1,600 tokens in all, more than 60% of a 4,096-token window's input. */
const FILES = [
  ...['sourdough.md', 'bicycle.md', 'beekeeping.md', 'coffee.md', 'expenses.md', 'kubernetes.md', 'photosynthesis.md', 'router.md'].map(
    (name) => path.join(CORPUS, name),
  ),
  path.join(DOCUMENTS, 'report.pdf'),
  path.join(DOCUMENTS, 'minutes.docx'),
];
const SMALL_MODEL = 'tiny-window';
const LARGE_MODEL = 'gpt-4o-mini';

interface ChatBody {
  messages: Array<{ role: string; content?: unknown }>;
  tools?: Array<{ function?: { name?: string } }>;
}

/** A message's text, whether the adapter sent a string or content parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? '').join('\n');
  return '';
}

/** Serious and critical axe violations inside the project's search panel (see a11y.e2e.ts). */
async function findSeriousSearchViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).include('section[aria-labelledby="project-search-heading"]').analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((node) => `${v.id}: ${node.target.join(' ')}`));
}

test.describe('project files: fit or search, citations to the passage', () => {
  test.beforeEach(async ({ page, seed, settings, llm }) => {
    // Stored as Settings would store them (providers.e2e.ts adds a context window through the form).
    await seed.providers(
      [
        { name: 'Small', baseUrl: `${llm.url}/v1`, apiKey: 'sk-small', model: SMALL_MODEL, contextWindows: { [SMALL_MODEL]: 4096 } },
        { name: 'Large', baseUrl: `${llm.url}/v1`, apiKey: 'sk-large', model: LARGE_MODEL },
      ],
      { open: '/#/settings' },
    );
    await expect(settings.providerCard('Small').getByText('4,096 tokens')).toBeVisible();
    // No embedding model in the test browser: no download, keyword search (and the UI says so).
    await page.getByLabel('Allow downloading model files').uncheck();
  });

  test('a project too big for a small window is searched and the chip opens the cited page', async ({ page, llm, chat }) => {
    const project = new ProjectPage(page);
    await project.create('Field notes');
    await project.upload(FILES);

    await expect(project.uploads()).toHaveCount(FILES.length);
    await expect(project.uploads().and(page.locator('[data-status="done"]'))).toHaveCount(FILES.length, { timeout: 30_000 });
    await expect(project.files()).toHaveCount(FILES.length);
    await expect(project.files().filter({ hasText: 'report.pdf' })).toContainText('tokens');

    await project.chooseModel(SMALL_MODEL, 'Small');
    await expect(project.fit()).toHaveAttribute('data-mode', 'search');
    await expect(project.fitMode()).toHaveText('Searching the files: the project is larger than 60% of this model’s context');
    await expect(project.searchMode()).toContainText('Keyword search only');
    await page.screenshot({ path: 'test-results/screenshots/project-search-light-wide.png' });

    llm.queueScenarios(
      { kind: 'tool-calls', calls: [{ id: 'call_search', name: 'search_project', arguments: { queries: ['Lisbon office open'] } }] },
      { kind: 'text', text: 'The board expects the Lisbon office to open in March [1].' },
    );
    await project.startChat();
    await expect(page.getByRole('group', { name: 'Models' }).getByLabel('Model')).toHaveValue(new RegExp(`${SMALL_MODEL}$`));
    await chat.send('When does the Lisbon office open?');
    await expect(chat.lastAnswer()).toContainText('open in March', { timeout: 20_000 });
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    const generations = llm.requests().filter((r) => !r.isPreflight && r.path.endsWith('/chat/completions'));
    const first = generations[0]?.body as ChatBody;
    expect(first.tools?.map((t) => t.function?.name)).toContain('search_project');
    expect(first.messages.map((m) => textOf(m.content)).join('\n')).not.toContain('{"documents": [');

    await chat.lastAnswer().getByRole('button', { name: /^Source 1:/ }).click();
    await expect(project.viewer()).toBeVisible();
    await expect(project.viewer().getByTestId('file-viewer-page')).toHaveText('Page 3 of 3');
    await expect(project.citedPassage()).toContainText('Lisbon office to open in March');
    await page.screenshot({ path: 'test-results/screenshots/file-viewer-cited-light-wide.png' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 800 });
    await page.screenshot({ path: 'test-results/screenshots/file-viewer-cited-dark-narrow.png' });
    await page.keyboard.press('Escape');
    await expect(project.viewer()).toBeHidden();
  });

  test('the project page searches the files by keyword and opens a passage in the viewer', async ({ page }) => {
    const project = new ProjectPage(page);
    await project.create('Field notes');
    await expect(project.searchBox()).toHaveCount(0);
    await project.upload(FILES);
    await expect(project.uploads().and(page.locator('[data-status="done"]'))).toHaveCount(FILES.length, { timeout: 30_000 });

    // Keyboard only: the box is reachable, Enter searches.
    const hits = await project.searchFiles('Lisbon office');
    await expect(project.searchRetrieval()).toHaveAttribute('data-mode', 'keyword');
    await expect(project.searchRetrieval()).toHaveText(
      'Keyword search (BM25) only: the passages have no embeddings from the current model yet.',
    );
    const first = hits.first();
    await expect(first).toContainText('report.pdf');
    await expect(first.getByTestId('project-search-location')).toHaveText('Page 3');
    await expect(first.locator('mark').first()).toHaveText('Lisbon');
    await expect(first).toContainText('Lisbon office to open in March');
    await first.scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/screenshots/project-file-search-light-wide.png' });
    expect(await findSeriousSearchViolations(page), 'light').toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 800 });
    await first.scrollIntoViewIfNeeded();
    await page.screenshot({ path: 'test-results/screenshots/project-file-search-dark-narrow.png' });
    expect(await findSeriousSearchViolations(page), 'dark').toEqual([]);

    await first.getByRole('button', { name: 'Open passage in report.pdf, Page 3' }).focus();
    await page.keyboard.press('Enter');
    await expect(project.viewer().getByTestId('file-viewer-page')).toHaveText('Page 3 of 3');
    await expect(project.citedPassage()).toContainText('Lisbon office to open in March');
    await page.keyboard.press('Escape');
    await expect(project.viewer()).toBeHidden();

    // Typing searches by itself once it pauses; a word no file has says so.
    await project.searchBox().fill('zeppelin');
    await expect(project.searchStatus()).toHaveText('No passage matches “zeppelin”.');
    await expect(project.searchHits()).toHaveCount(0);
    await project.searchBox().fill('');
    await expect(project.searchStatus()).toHaveText('');
    await expect(project.searchRetrieval()).toHaveCount(0);
  });

  test('with a large window the same project goes inline, documents above the question', async ({ page, llm, chat }) => {
    const project = new ProjectPage(page);
    await project.create('Field notes');
    await project.upload(FILES);
    await expect(project.files()).toHaveCount(FILES.length, { timeout: 30_000 });
    await expect(project.files().and(page.locator('[data-status="ready"]'))).toHaveCount(FILES.length, { timeout: 30_000 });

    await project.chooseModel(SMALL_MODEL, 'Small');
    await expect(project.fit()).toHaveAttribute('data-mode', 'search');
    await project.chooseModel(LARGE_MODEL, 'Large');
    await expect(project.fitMode()).toHaveText('All files in context');
    await expect(project.fit()).toHaveAttribute('data-mode', 'inline');

    llm.setScenario({ kind: 'text', text: 'Revenue grew by twelve percent [1].' });
    await project.startChat();
    await chat.send('How did revenue change?');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete', { timeout: 20_000 });

    const generation = llm.requests().find((r) => !r.isPreflight && r.path.endsWith('/chat/completions'));
    const messages = (generation?.body as ChatBody).messages;
    const texts = messages.map((m) => (m.role === 'user' ? textOf(m.content) : ''));
    const questionIndex = texts.findLastIndex((text) => text.includes('How did revenue change?'));
    const documentsIndex = texts.findIndex((text) => text.includes('{"documents": ['));
    expect(documentsIndex).toBeGreaterThanOrEqual(0);
    expect(documentsIndex).toBeLessThan(questionIndex);
    expect(texts[documentsIndex]).toMatch(/"document":\s?1,/);
    expect(texts[documentsIndex]).toContain('The board expects the Lisbon office to open in March.');
  });
});
