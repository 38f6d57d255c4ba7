import { expect, test } from './fixtures';

const fence = (language: string, code: string): string => ['```' + language, code, '```'].join('\n');

test.describe('artifacts', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.provider({ name: 'Mock', baseUrl: `${llm.url}/v1`, apiKey: 'sk-artifacts', model: 'mock-model' }, { open: '/#/settings' });
  });

  test('an HTML answer previews in a sandboxed frame that reads no storage and loads nothing', async ({ page, chat, llm, cspViolations }) => {
    const leakUrl = `${llm.url}/leak.png`;
    const html = [
      '<!doctype html>',
      '<html><head><title>Price table</title></head>',
      `<body><h1 id="heading">Prices</h1><img src="${leakUrl}" alt="tracker"></body></html>`,
    ].join('\n');
    llm.queueScenarios({ kind: 'text', chunkSize: 400, tokensPerSecond: 400, text: `Here it is:\n\n${fence('html', html)}` });
    await page.evaluate(() => localStorage.setItem('carrel-artifact-probe', 'app secret'));
    await chat.newChat();
    await chat.send('make a price table');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    await chat.lastAnswer().getByRole('button', { name: 'Preview this code' }).click();
    const panel = page.getByTestId('artifact-panel');
    await expect(panel.getByRole('heading', { name: 'Price table' })).toBeVisible();
    await expect(panel.getByTestId('artifact-version')).toHaveText('Version 1 of 1');
    const frameElement = panel.getByTestId('artifact-frame');
    await expect(frameElement).toHaveAttribute('sandbox', '');
    const frame = page.frameLocator('[data-testid="artifact-frame"]');
    await expect(frame.locator('#heading')).toHaveText('Prices');

    // The frame has an opaque origin: the app's localStorage and IndexedDB are out of its reach.
    const handle = await frameElement.elementHandle();
    const content = await handle?.contentFrame();
    if (!content) throw new Error('The preview frame has no document');
    const probe = await content.evaluate(async () => {
      const tryRead = async (read: () => unknown): Promise<string> => {
        try {
          return `read: ${String(await read())}`;
        } catch (error) {
          return `refused: ${error instanceof Error ? error.name : String(error)}`;
        }
      };
      return {
        origin: window.origin,
        localStorage: await tryRead(() => window.localStorage.getItem('carrel-artifact-probe')),
        indexedDb: await tryRead(() => window.indexedDB.databases()),
      };
    });
    expect(probe.origin).toBe('null');
    expect(probe.localStorage).toMatch(/^refused/);
    expect(probe.indexedDb).toMatch(/^refused/);

    // The image never reached the network: the frame's own policy blocked it (the only violation,
    // and it is the artifact's, not the app's), so the mock server saw no request for it.
    await expect.poll(() => cspViolations.some((line) => line.includes('leak.png'))).toBe(true);
    expect(llm.requests().filter((request) => request.path.includes('leak'))).toEqual([]);
    const artifactsOwn = cspViolations.filter((line) => line.includes('leak.png'));
    // The frame inherits the app's policy and adds its own: each refuses the image.
    expect(artifactsOwn.every((line) => line.includes('img-src'))).toBe(true);
    expect(artifactsOwn.some((line) => line.includes('"img-src data:"'))).toBe(true);
    cspViolations.splice(0, cspViolations.length, ...cspViolations.filter((line) => !line.includes('leak.png')));

    // Narrow screens stack the preview under the chat.
    await page.setViewportSize({ width: 390, height: 844 });
    const chatBox = await page.getByRole('region', { name: 'Chat' }).boundingBox();
    const panelBox = await panel.boundingBox();
    expect(panelBox && chatBox && panelBox.y >= chatBox.y + chatBox.height - 1).toBe(true);
    await page.screenshot({ path: 'test-results/screenshots/artifact-html-narrow.png' });
  });

  test('a Mermaid diagram is drawn as SVG in the preview', async ({ page, chat, llm }) => {
    const diagram = ['flowchart LR', '  Ask --> Answer'].join('\n');
    llm.queueScenarios({ kind: 'text', chunkSize: 400, tokensPerSecond: 400, text: `The flow:\n\n${fence('mermaid', diagram)}` });
    await chat.newChat();
    await chat.send('draw the flow');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    await chat.lastAnswer().getByRole('button', { name: 'Preview this code' }).click();
    const panel = page.getByTestId('artifact-panel');
    await expect(panel).toHaveAttribute('data-kind', 'mermaid');
    const svg = page.frameLocator('[data-testid="artifact-frame"]').locator('svg');
    await expect(svg).toBeVisible();
    await expect(svg).toContainText('Ask');
    await expect(svg).toContainText('Answer');
  });

  test('an SVG renders; the revised artifact shows version 2 of 2', async ({ page, chat, llm }) => {
    const circle = (color: string): string =>
      `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="200" height="200"><title>Logo</title><circle id="dot" cx="50" cy="50" r="40" fill="${color}"/></svg>`;
    llm.queueScenarios({ kind: 'text', chunkSize: 400, tokensPerSecond: 400, text: `A logo:\n\n${fence('svg', circle('red'))}` });
    await chat.newChat();
    await chat.send('draw a logo');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    const panel = page.getByTestId('artifact-panel');
    const frame = page.frameLocator('[data-testid="artifact-frame"]');
    await chat.lastAnswer().getByRole('button', { name: 'Preview this code' }).click();
    await expect(frame.locator('#dot')).toHaveAttribute('fill', 'red');

    // The default reply, not a queued one: the chat's title request may come after the first answer.
    llm.setScenario({ kind: 'text', chunkSize: 400, tokensPerSecond: 400, text: `The logo in blue:\n\n${fence('svg', circle('blue'))}` });
    await chat.send('make it blue');
    await expect(chat.answers()).toHaveCount(2);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await chat.lastAnswer().getByRole('button', { name: 'Preview this code' }).click();
    await expect(panel).toHaveAttribute('data-kind', 'svg');
    await expect(panel.getByRole('heading', { name: 'Logo' })).toBeVisible();
    await expect(panel.getByTestId('artifact-version')).toHaveText('Version 2 of 2');
    await expect(frame.locator('#dot')).toHaveAttribute('fill', 'blue');
    await panel.getByRole('button', { name: 'Previous version' }).click();
    await expect(panel.getByTestId('artifact-version')).toHaveText('Version 1 of 2');
    await expect(frame.locator('#dot')).toHaveAttribute('fill', 'red');

    const download = page.waitForEvent('download');
    await panel.getByRole('button', { name: 'Download' }).click();
    expect((await download).suggestedFilename()).toBe('logo-v1.svg');
    await page.screenshot({ path: 'test-results/screenshots/artifact-svg-wide.png' });
  });
});
