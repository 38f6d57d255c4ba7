import type { Page } from '@playwright/test';
import type { RecordedRequest } from '../mock-llm/server';
import { expect, test } from './fixtures';

const RICH_ANSWER = [
  '# Summary',
  '',
  'Here is **bold** text, a [link](https://example.com/docs) and inline math $e^{i\\pi}+1=0$.',
  '',
  '```js',
  'function add(a, b) {',
  '  return a + b; // the sum',
  '}',
  '```',
  '',
  '| Planet | Moons |',
  '|---|---|',
  '| Mars | 2 |',
  '| Earth | 1 |',
  '',
  '$$',
  '\\int_0^1 x^2\\,dx = \\frac{1}{3}',
  '$$',
].join('\n');

async function saveScreenshots(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [label, width] of [['narrow', 390], ['wide', 1280]] as const) {
      await page.setViewportSize({ width, height: 844 });
      await page.screenshot({ path: `test-results/screenshots/${name}-${scheme}-${label}.png` });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
}

test.describe('messages', () => {
  test.beforeEach(async ({ settings, llm }) => {
    await settings.open();
    await settings.addProvider({ name: 'Mock', baseUrl: `${llm.url}/v1`, apiKey: 'sk-messages-e2e', model: 'gpt-4o-mini' });
  });

  test('renders Markdown with highlighted code, a working copy button, math and tables', async ({
    page,
    context,
    chat,
    llm,
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    llm.queueScenarios({ kind: 'text', text: RICH_ANSWER, chunkSize: 12, reasoning: 'Let me think about the planets.' });
    await chat.newChat();
    await chat.send('show me some markdown');

    const answer = chat.lastAnswer();
    await expect(answer).toHaveAttribute('data-status', 'complete');
    await expect(answer.getByRole('heading', { name: 'Summary' })).toBeVisible();
    await expect(answer.locator('strong')).toHaveText('bold');
    const link = answer.getByRole('link', { name: 'link' });
    await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
    await expect(link).toHaveAttribute('target', '_blank');
    await expect(answer.locator('table td')).toHaveText(['Mars', '2', 'Earth', '1']);
    await expect(answer.locator('.katex')).toHaveCount(2);
    await expect(answer.locator('.math-block .katex-display')).toBeVisible();
    // highlight.js arrives lazily and colours the code.
    await expect(answer.locator('pre.code-block code.hljs')).toBeVisible();
    await expect(answer.locator('pre.code-block .hljs-keyword').first()).toHaveText('function');
    await expect(answer.getByTestId('reasoning-block').locator('summary')).toHaveText(/Thought for \d+ s/);

    await answer.getByRole('button', { name: 'Copy code' }).click();
    await expect(answer.getByRole('button', { name: 'Copy code' })).toHaveText('Copied');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe('function add(a, b) {\n  return a + b; // the sum\n}\n');

    // The action icons are copies of Lucide's drawings, one per button.
    await expect(answer.getByRole('button', { name: 'Copy', exact: true }).locator('svg')).toHaveClass(/\blucide-copy\b/);
    await expect(answer.getByTestId('answer-usage').locator('svg')).toHaveClass(/\blucide-chart-column\b/);
    await answer.getByRole('button', { name: 'Copy', exact: true }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('| Planet | Moons |');

    // Usage and cost on hover.
    await answer.getByTestId('answer-usage').hover();
    await expect(answer.getByTestId('answer-usage')).toHaveAccessibleName(/^Usage: [\d,]+ in · [\d,]+ out · (.+ · )?\$[\d.]+$/);

    await saveScreenshots(page, 'messages-markdown');
  });

  test('a hostile answer renders inert: no HTML, no script links, no remote images', async ({ page, chat, llm }) => {
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const hostile =
      'Look: <img src=x onerror=alert(1)> and [click me](javascript:alert(1)) and ![tracker](https://tracker.example/pixel.png) and <script>alert(2)</script>';
    llm.queueScenarios({ kind: 'text', text: hostile, chunkSize: 5 });
    await chat.newChat();
    await chat.send('be evil');

    const answer = chat.lastAnswer();
    await expect(answer).toHaveAttribute('data-status', 'complete');
    await expect(answer).toContainText('<img src=x onerror=alert(1)>');
    await expect(answer.locator('img')).toHaveCount(0);
    await expect(answer.locator('script')).toHaveCount(0);
    await expect(answer.locator('a[href^="javascript:" i]')).toHaveCount(0);
    // The image is offered as a link instead of loading.
    await expect(answer.getByRole('link', { name: /tracker/ })).toHaveAttribute('href', 'https://tracker.example/pixel.png');
    await answer.getByText('click me').click();
    expect(dialogs).toEqual([]);
  });

  test('excluding a message keeps it out of the next request', async ({ chat, llm }) => {
    llm.setScenario({ kind: 'text', text: 'Noted.' });
    await chat.newChat();
    await chat.send('apple question');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await chat.send('banana question');
    await expect(chat.answers()).toHaveCount(2);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    const first = chat.userRows().first();
    await chat.toggleExclude(first);
    await expect(first).toHaveAttribute('data-excluded', 'true');
    await chat.send('cherry question');
    await expect(chat.answers()).toHaveCount(3);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    const texts = lastRequestUserTexts(llm.requests());
    expect(texts.some((t) => t.includes('cherry question'))).toBe(true);
    expect(texts.some((t) => t.includes('banana question'))).toBe(true);
    expect(texts.some((t) => t.includes('apple question'))).toBe(false);

    // Included again, it is sent again.
    await chat.toggleExclude(first);
    await expect(first).toHaveAttribute('data-excluded', 'false');
    await chat.send('date question');
    await expect(chat.answers()).toHaveCount(4);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    expect(lastRequestUserTexts(llm.requests()).some((t) => t.includes('apple question'))).toBe(true);
  });
});

test.describe('pinned messages', () => {
  test.beforeEach(async ({ settings, llm }) => {
    await settings.open();
    // An unknown model gets a small (8,192-token) window, so a long history must be trimmed.
    await settings.addProvider({ name: 'Small', baseUrl: `${llm.url}/v1`, apiKey: 'sk-pins-e2e', model: 'mock-small' });
  });

  test('a pinned question stays in the request when older history is trimmed', async ({ chat, llm }) => {
    // Three long turns on two shared cores: generous, never a timing assertion.
    test.setTimeout(90_000);
    const long = (word: string): string => `${word.toUpperCase()} ${`${word} `.repeat(2400)}`;
    llm.setScenario({ kind: 'text', text: 'Noted.' });
    await chat.newChat();
    await chat.send(long('first'));
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await chat.send(long('second'));
    // Rows far above the viewport are not in the DOM (virtualized): count the list's items.
    await expect(chat.messageList()).toHaveAttribute('data-count', '4');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    const firstQuestion = chat.userRows().filter({ hasText: 'FIRST' });
    await chat.scrollToTop();
    await expect(firstQuestion.getByRole('button', { name: 'Pin', exact: true }).locator('svg')).toHaveClass(/\blucide-pin\b/);
    await chat.togglePin(firstQuestion);
    await expect(firstQuestion).toHaveAttribute('data-pinned', 'true');
    // The toggle's icon follows its state: one icon, the crossed-out pin.
    await expect(firstQuestion.getByRole('button', { name: 'Unpin', exact: true }).locator('svg')).toHaveClass(/\blucide-pin-off\b/);
    await chat.send(long('third'));
    // The list is scrolled to the top, so the new answer's row is not drawn: the request that
    // carries the third question is what the model was sent.
    const third = await llm.waitForRequest((request) => isChatTurn(request) && request.rawBody.includes('THIRD third'));
    await expect(chat.messageList()).toHaveAttribute('data-count', '6');
    await expect(chat.page.getByRole('button', { name: 'Stop', exact: true })).toBeHidden();
    const texts = userTextsOf(third);
    expect(texts.some((t) => t.includes('THIRD'))).toBe(true);
    expect(texts.some((t) => t.includes('FIRST'))).toBe(true);
    expect(texts.some((t) => t.includes('SECOND'))).toBe(false);
  });
});

/**
 * The user messages of the newest answer request the mock received, as JSON text. A long chat is
 * compacted in the background after an answer, so the newest request can be the summariser's:
 * it is recognised by its instructions and left out.
 */
/** A request for an answer in the chat: not a preflight, a chat title or a summary of old turns. */
function isChatTurn(request: RecordedRequest): boolean {
  return (
    request.path.endsWith('/chat/completions') &&
    !request.isPreflight &&
    !request.rawBody.includes('You compact long conversations') &&
    !request.rawBody.includes('You name conversations')
  );
}

function userTextsOf(request: RecordedRequest | undefined): string[] {
  const body = request?.body as { messages: Array<{ role: string; content: unknown }> } | undefined;
  return (body?.messages ?? []).filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content));
}

function lastRequestUserTexts(requests: RecordedRequest[]): string[] {
  return userTextsOf(requests.filter(isChatTurn).at(-1));
}
