import { expect, test } from './fixtures';
import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import { AgentsPage } from './pages/agents-page';
import { InspectorPage } from './pages/inspector-page';
import { ProjectPage } from './pages/project-page';
import { ShellPage } from './pages/shell-page';
import type { ChatPage } from './pages/chat-page';
import type { MockLlm } from '../mock-llm/server';

/** What a first-time user meets, at a phone's width and at a desktop's. */
const WIDTHS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 800 },
] as const;

async function overlaps(a: Locator, b: Locator): Promise<boolean> {
  const [boxA, boxB] = await Promise.all([a.boundingBox(), b.boundingBox()]);
  if (!boxA || !boxB) throw new Error('both elements must be shown');
  return boxA.x < boxB.x + boxB.width && boxB.x < boxA.x + boxA.width && boxA.y < boxB.y + boxB.height && boxB.y < boxA.y + boxA.height;
}

/** Nothing covers the middle of the element: a click there reaches it. */
async function isOnTop(element: Locator): Promise<boolean> {
  return element.evaluate((target) => {
    const box = target.getBoundingClientRect();
    const hit = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
    return hit !== null && target.contains(hit);
  });
}

/** Chromium's "this app can be installed" event, as the browser fires it once Carrel qualifies. */
async function offerInstall(page: Page): Promise<void> {
  const install = page.getByRole('button', { name: 'Install Carrel' });
  // The install listener starts after the first paint: offer until the button shows.
  await expect
    .poll(async () => {
      await page.evaluate(() => {
        const event = Object.assign(new Event('beforeinstallprompt', { cancelable: true }), {
          prompt: () => Promise.resolve(),
          userChoice: Promise.resolve({ outcome: 'dismissed' as const }),
        });
        window.dispatchEvent(event);
      });
      return install.isVisible();
    })
    .toBe(true);
}

test.describe('a first chat', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  });

  test('titles the chat in plain words, without the Markdown of the question or the model', async ({ page, chat, llm }) => {
    llm.setScenario({ kind: 'text', text: '**Paris** is the capital.' });
    await chat.send('# What is the **capital** of France?');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    const title = /^(What is the capital of France\?|Paris is the capital)$/;
    await expect(chat.sessionLinks()).toHaveText([title]);
    await expect(page.getByTestId('screen-title')).toHaveText(title);
  });

  test('the skipped-messages note counts the questions and answers the request leaves out', async ({ page, chat, llm }) => {
    const agents = new AgentsPage(page);
    await agents.open();
    await agents.create({ name: 'Brief', prompt: 'Be brief.', strategy: { label: 'Last messages', fields: { 'Messages kept': '4' } } });
    await chat.newChat();
    await chat.agentPicker().selectOption({ label: 'Brief' });
    // The first question carries a file: with it the question is one message of the chat.
    await page.getByLabel('Attach files to the message').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('The kettle is on.') });
    await expect(page.getByTestId('attachment-chip')).toHaveAttribute('data-status', 'ready');
    const questions = ['first question', 'second question', 'third question', 'fourth question'];
    for (const question of questions) {
      llm.clearRequests();
      await chat.send(question);
      await expect(chat.lastAnswer()).toContainText(`You said: ${question}`);
    }
    const request = await llm.waitForRequest((recorded) => recorded.provider === 'openai' && JSON.stringify(recorded.body).includes('fourth question'));
    const body = JSON.stringify(request.body);
    const chatMessages = questions.slice(0, -1).flatMap((question) => [question, `You said: ${question}`]);
    const leftOut = chatMessages.filter((text) => !body.includes(`"${text}"`));
    expect(leftOut.length).toBeGreaterThan(0);
    expect(body).toContain(`[Skipped ${leftOut.length} earlier ${leftOut.length === 1 ? 'message' : 'messages'} of this conversation.]`);
  });

  test("a project's default agent applies at once, and leaving the project restores the default", async ({ page, chat }) => {
    const agents = new AgentsPage(page);
    await agents.open();
    await agents.create({ name: 'Researcher' });
    const project = new ProjectPage(page);
    await project.create('Thesis');
    await project.settingsForm().getByLabel('Default agent').selectOption({ label: 'Researcher' });
    await project.startChat();
    const agentPicker = page.getByRole('combobox', { name: 'Agent' });
    await expect(agentPicker.locator('option:checked')).toHaveText('Researcher');
    await chat.newChat();
    await expect(page.getByTestId('new-chat-project')).toBeHidden();
    await expect(agentPicker.locator('option:checked')).toHaveText('Default');
  });

  test("before the first message the inspector shows the project's instructions, its agent's prompt and the attached file", async ({ page }) => {
    const agents = new AgentsPage(page);
    await agents.open();
    await agents.create({ name: 'Researcher', prompt: 'Cite your sources carefully.' });
    const project = new ProjectPage(page);
    await project.create('Thesis');
    await project.settingsForm().getByLabel('Default agent').selectOption({ label: 'Researcher' });
    await project.setInstructions('Write for a thesis committee.');
    await project.startChat();
    await page.getByLabel('Attach files to the message').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('The kettle is on.') });
    await expect(page.getByTestId('attachment-chip')).toHaveAttribute('data-status', 'ready', { timeout: 30_000 });
    await page.getByLabel('Message', { exact: true }).fill('Summarise my notes.');
    await new ShellPage(page).openPanel();
    const inspector = new InspectorPage(page);
    await inspector.show('Next request');
    await expect(inspector.root).toContainText('Cite your sources carefully.');
    await expect(inspector.root).toContainText('Write for a thesis committee.');
    await expect(inspector.root).toContainText('The kettle is on.');
    await expect(inspector.root).toContainText('Summarise my notes.');
  });

  test("the sidebar's New chat starts outside any project, or in the project being viewed", async ({ page, chat }) => {
    const project = new ProjectPage(page);
    await project.create('Thesis');
    await project.startChat();
    await expect(page.getByTestId('new-chat-project')).toBeVisible();
    await chat.newChat();
    await expect(page.getByTestId('new-chat-project')).toBeHidden();
    await page.getByRole('navigation', { name: 'Chats' }).getByRole('link', { name: 'Thesis' }).click();
    await page.getByRole('heading', { name: 'Thesis', level: 1 }).waitFor();
    await chat.newChat();
    await expect(page.getByTestId('new-chat-project')).toBeVisible();
  });

  test('a new agent names the tools it offers, and its requests carry them', async ({ page, chat, llm }) => {
    const agents = new AgentsPage(page);
    await agents.open();
    await expect(agents.item('Default')).toContainText('open_url');
    await agents.create({ name: 'Helper' });
    await expect(agents.item('Helper')).toContainText('web_search, open_url, search_project, read_file');
    await expect(agents.item('Helper')).not.toContainText('default tools');

    await chat.newChat();
    await page.getByRole('combobox', { name: 'Agent' }).selectOption({ label: 'Helper' });
    llm.setScenario({ kind: 'text', text: 'Hello.' });
    await chat.send('Hi');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    const sent = llm.requests().find((request) => (JSON.stringify(request.body) ?? '').includes('"Hi"'));
    const tools = (sent?.body as { tools?: Array<{ function?: { name?: string } }> } | undefined)?.tools ?? [];
    expect(tools.map((tool) => tool.function?.name)).toContain('open_url');
  });
});

for (const size of WIDTHS) {
  test(`the Offline and Install notices cover none of the top bar's buttons (${size.name})`, async ({ seed, page, context, llm }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
    await offerInstall(page);
    await context.setOffline(true);
    const offline = page.getByTestId('connectivity');
    await expect(offline).toContainText('Offline');
    const install = page.getByRole('button', { name: 'Install Carrel' });
    for (const name of ['Context', 'Keyboard shortcuts']) {
      const button = page.getByRole('button', { name, exact: true });
      await expect(button).toBeVisible();
      expect(await overlaps(offline, button), `Offline over ${name}`).toBe(false);
      expect(await overlaps(install, button), `Install over ${name}`).toBe(false);
      expect(await isOnTop(button), `${name} can be clicked`).toBe(true);
    }
    await page.screenshot({ path: `test-results/screenshots/first-use-status-${size.name}.png` });
    await context.setOffline(false);
  });
}

for (const size of WIDTHS) {
  test(`a sent question shows its files as chips that open the file (${size.name})`, async ({ seed, page, chat, llm }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
    // A long name with a direction override: shown escaped, cut short, never wider than the screen.
    const name = 'quarterly-report-for-the-whole-team-2026\u202Efdp.txt';
    await page.getByLabel('Attach files to the message').setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from('The kettle is on.') });
    // The first file starts the ingest worker.
    await expect(page.getByTestId('attachment-chip')).toHaveAttribute('data-status', 'ready', { timeout: 30_000 });
    await chat.send('What does the file say?');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    const chip = page.getByTestId('message-attachment');
    await expect(chip).toHaveCount(1);
    await expect(chip).toContainText('quarterly-report-for-the-whole-team-2026[U+202E]fdp.txt');
    await expect(chip).toContainText(/\d+ tokens/);
    const box = await chip.boundingBox();
    expect(box).not.toBeNull();
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(size.width);
    expect(box?.height ?? 0).toBeLessThan(40);
    await page.screenshot({ path: `test-results/screenshots/first-use-attachment-chip-${size.name}.png` });
    await chip.click();
    const viewer = page.getByTestId('file-viewer');
    await expect(viewer).toContainText('The kettle is on.');
  });

  test(`the composer shows the draft and context figures from the start (${size.name})`, async ({ seed, page, llm }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
    const figures = /^\d+(\.\d)?k? \/ 128k$/;
    await expect(page.getByTestId('draft-tokens')).toHaveText('0');
    await expect(page.getByTestId('context-tokens')).toHaveText(figures);
    await page.screenshot({ path: `test-results/screenshots/first-use-context-figure-${size.name}.png` });
  });
}

test.describe('an existing chat shows its context figure at once on desktop', () => {
  const figures = /^\d+(\.\d)?k? \/ 128k$/;

  test.beforeEach(async ({ seed, page, llm }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  });

  /**
   * Sends the question in the chat on screen (a new one) and returns the chat's address and its
   * context figure once the preview after the answer has come back (two reads apart agree).
   */
  async function chatWithFigure(page: Page, chat: ChatPage, llm: MockLlm, question: string, answer: string): Promise<{ url: string; figure: string }> {
    llm.setScenario({ kind: 'text', text: answer });
    await chat.send(question);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    const figure = page.getByTestId('context-tokens');
    await expect(figure).toHaveText(figures);
    let previous = '';
    let current = '';
    await expect
      .poll(async () => {
        previous = current;
        current = (await figure.textContent()) ?? '';
        return figures.test(current) && current === previous;
      }, { intervals: [300], timeout: 30_000 })
      .toBe(true);
    return { url: page.url(), figure: current };
  }

  const FRANCE = ['What is the capital of France?', 'Paris is the capital of France.'] as const;
  const SPAIN = ['What is the capital of Spain, and since when?', 'Madrid is the capital of Spain, and it has been since 1561, when the court moved there.'] as const;

  test('opened by its address in a new tab, without typing anything, at a desktop and a phone width', async ({ page, chat, llm, context }) => {
    const france = await chatWithFigure(page, chat, llm, ...FRANCE);
    const opened = await context.newPage();
    await opened.setViewportSize({ width: 1280, height: 800 });
    await opened.goto(france.url);
    // The answer, not the title the chat may have taken from it.
    await expect(opened.getByTestId('answer-text').getByText('Paris is the capital of France.')).toBeVisible();
    await expect(opened.getByTestId('context-tokens')).toHaveText(france.figure);
    // The phone layout shows the same figure for the same chat.
    await opened.setViewportSize({ width: 390, height: 844 });
    await expect(opened.getByTestId('context-tokens')).toHaveText(france.figure);
  });

  test('reloaded', async ({ page, chat, llm }) => {
    const spain = await chatWithFigure(page, chat, llm, ...SPAIN);
    await page.reload();
    await expect(page.getByTestId('answer-text').getByText('Madrid is the capital of Spain')).toBeVisible();
    await expect(page.getByTestId('context-tokens')).toHaveText(spain.figure);
  });

  test('switched to from the sidebar, both ways', async ({ page, chat, llm }) => {
    const france = await chatWithFigure(page, chat, llm, ...FRANCE);
    await chat.newChat();
    const spain = await chatWithFigure(page, chat, llm, ...SPAIN);
    expect(spain.figure).not.toBe(france.figure);
    const figure = page.getByTestId('context-tokens');
    await chat.sessionLinks().filter({ hasText: /France|Paris/ }).click();
    await expect(page).toHaveURL(france.url);
    await expect(figure).toHaveText(france.figure);
    await chat.sessionLinks().filter({ hasText: /Spain|Madrid/ }).click();
    await expect(page).toHaveURL(spain.url);
    await expect(figure).toHaveText(spain.figure);
  });
});

for (const size of WIDTHS) {
  test(`message actions are icon buttons named by label and tooltip, shown on hover and focus (${size.name})`, async ({ seed, page, chat, llm }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
    llm.setScenario({ kind: 'text', text: 'Paris.' });
    await chat.send('What is the capital of France?');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    const question = chat.userRows().first();
    const answer = chat.lastAnswer();
    const userActions = question.getByRole('group', { name: 'Message actions' });
    const answerActions = answer.getByRole('group', { name: 'Answer actions' });
    for (const [group, names] of [
      [userActions, ['Copy', 'Edit', 'Pin', 'Exclude', 'Delete']],
      [answerActions, ['Copy', 'Regenerate', 'Pin', 'Exclude', 'Delete']],
    ] as const) {
      for (const name of names) {
        const action = group.getByLabel(name, { exact: true });
        await expect(action).toHaveAttribute('title', new RegExp(`^${name}`));
        await expect(action).toHaveText('');
        const box = await action.boundingBox();
        expect(box?.width ?? 0, `${name} is a compact icon`).toBeLessThan(40);
      }
    }
    await expect(answerActions.getByTestId('answer-usage')).toHaveAccessibleName(/^Usage: /);

    // Out of the way until the pointer is on the message or the focus in its actions.
    await page.mouse.move(0, size.height - 1);
    await expect(userActions).toHaveCSS('opacity', '0');
    await expect(answerActions).toHaveCSS('opacity', '0');
    await question.getByTestId('user-message').hover();
    await expect(userActions).toHaveCSS('opacity', '1');
    await page.mouse.move(0, size.height - 1);
    await answerActions.getByRole('button', { name: 'Copy' }).focus();
    await expect(answerActions).toHaveCSS('opacity', '1');
    await page.screenshot({ path: `test-results/screenshots/first-use-actions-${size.name}.png` });
    const serious = (await new AxeBuilder({ page }).analyze()).violations.filter(
      (violation) => violation.impact === 'serious' || violation.impact === 'critical',
    );
    expect(serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([]);

    // A touch screen has no hover: there the actions always show.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 1 });
    expect(await page.evaluate(() => matchMedia('(hover: none)').matches)).toBe(true);
    await page.locator('body').focus();
    await expect(userActions).toHaveCSS('opacity', '1');
    await expect(answerActions).toHaveCSS('opacity', '1');

    // The model picker shows the whole model name.
    const picker = page.getByRole('combobox', { name: 'Model', exact: true });
    await expect(picker).toContainText('gpt-4o-mini · Custom endpoint');
    const fits = await picker.evaluate((select: HTMLSelectElement) => {
      const probe = document.createElement('span');
      probe.style.font = getComputedStyle(select).font;
      probe.style.whiteSpace = 'pre';
      probe.textContent = select.selectedOptions[0]?.textContent ?? '';
      document.body.append(probe);
      const textWidth = probe.getBoundingClientRect().width;
      probe.remove();
      // Padding and the drop-down arrow take about two dozen pixels.
      return textWidth + 24 <= select.clientWidth;
    });
    expect(fits, 'the whole model name fits the picker').toBe(true);
  });
}

test.describe('wording a newcomer reads', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini', apiKey: '' });
  });

  test('provider settings speak plainly: no "key no key", counted models, each kind its own example', async ({ page, settings, llm }) => {
    await settings.open();
    const card = settings.providerCard('Custom endpoint');
    await expect(card).toContainText('no key');
    await expect(card).not.toContainText('key no key');

    const listed = card.getByTestId('listed-models');
    const models = `${llm.url}/v1/models`;
    await page.context().route(models, (route) => route.fulfill({ json: { object: 'list', data: [{ id: 'only-model', object: 'model' }] } }));
    await settings.testConnection('Custom endpoint');
    await expect(listed).toContainText('1 model offered by Custom endpoint');
    await listed.getByRole('button', { name: 'Close' }).click();
    await page.context().unroute(models);
    await page.context().route(models, (route) => route.fulfill({ json: { object: 'list', data: [] } }));
    await settings.testConnection('Custom endpoint');
    await expect(listed).toContainText('lists no models. Type the model ids under Edit › Models');

    const form = page.getByRole('form', { name: 'Add a provider' });
    for (const [preset, example] of [['openai', 'gpt-4o-mini'], ['anthropic', 'claude'], ['google', 'gemini']] as const) {
      await form.getByLabel('Preset').selectOption(preset);
      await expect(form.getByLabel('Model')).toHaveAttribute('placeholder', new RegExp(`^${example}`));
    }
  });
});

for (const size of WIDTHS) {
  test(`a settings section link brings that section to the top, under the top bar (${size.name})`, async ({ seed, page, settings, llm }) => {
    await page.setViewportSize({ width: size.width, height: size.height });
    await seed.customEndpoint({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
    await settings.open();
    const topBar = page.getByTestId('screen-title');
    const topBarBottom = async (): Promise<number> => (await topBar.boundingBox())?.y ?? -1;
    const startY = await topBarBottom();
    for (const name of ['Storage', 'Web tools', 'Appearance']) {
      await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name }).click();
      const heading = page.getByRole('heading', { name, exact: true, level: 2 });
      await expect(heading).toBeInViewport();
      // The top bar stays where it was, and the heading sits just below it, not above the pane.
      expect(await topBarBottom()).toBe(startY);
      const headingY = (await heading.boundingBox())?.y ?? -1;
      const paneTop = await page.locator('.settings-scroller').evaluate((pane) => pane.getBoundingClientRect().top);
      expect(headingY, `${name} heading below the pane's top`).toBeGreaterThanOrEqual(paneTop);
      if (name !== 'Appearance') expect(headingY - paneTop, `${name} heading at the pane's top`).toBeLessThan(40);
    }
    await page.screenshot({ path: `test-results/screenshots/first-use-settings-jump-${size.name}.png` });
  });
}
