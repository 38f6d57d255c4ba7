import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from './fixtures';

test.describe('the local database', () => {
  test.beforeEach(async ({ seed, llm, chat }) => {
    await seed.provider({
      name: 'Mock',
      baseUrl: `${llm.url}/v1`,
      apiKey: 'sk-db-e2e',
      model: 'gpt-4o-mini',
    }, { open: '/#/settings' });
    llm.queueScenarios(
      { kind: 'text', text: 'Stored answer.' },
      { kind: 'text', text: 'Stored chat' },
    );
    await chat.newChat();
    await chat.send('remember this');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
  });

  test('a newer schema opened in another tab shows a reload prompt here and loses nothing', async ({
    page,
    context,
    chat,
  }) => {
    const other = await context.newPage();
    await other.goto('/#/settings');
    // What a newer Carrel does on start: open the database at a higher version.
    const upgraded = await other.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const probe = indexedDB.open('carrel');
          probe.onsuccess = () => {
            const next = probe.result.version + 10;
            probe.result.close();
            const request = indexedDB.open('carrel', next);
            request.onupgradeneeded = () => request.result.createObjectStore('futureTable');
            request.onblocked = () => resolve('blocked');
            request.onsuccess = () => {
              request.result.close();
              resolve('upgraded');
            };
            request.onerror = () => resolve(`error: ${String(request.error)}`);
          };
        }),
    );
    // Both of this tab's connections (window and agent worker) closed, so nothing blocked it.
    expect(upgraded).toBe('upgraded');
    const banner = page.getByTestId('database-outdated');
    await expect(banner).toBeVisible();
    await expect(banner).toContainText('Reload this tab');
    // A write tried in this tab now is refused where the person sees it, never lost quietly:
    // after the reload the chat holds exactly what was reported saved.
    await chat.send('written after the upgrade');
    await expect(page.getByTestId('chat-error')).toContainText(
      'Carrel could not read or save its data',
    );

    await banner.getByRole('button', { name: 'Reload' }).click();
    await expect(chat.userMessages()).toHaveText(['remember this']);
    await expect(chat.lastAnswer()).toContainText('Stored answer.');
    await other.close();
  });

  test('a chat exports as Markdown, and a ChatGPT export imports as chats with their branches', async ({
    page,
    chat,
  }) => {
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    await page.getByRole('menuitem', { name: 'Markdown (.md)' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.md$/);
    const markdown = await readFile((await file.path()) ?? '', 'utf8');
    expect(markdown).toContain('remember this');
    expect(markdown).toContain('Stored answer.');

    await page.goto('/#/settings');
    await page
      .getByLabel('Import from ChatGPT (conversations.json)')
      .setInputFiles(join(process.cwd(), 'test/fixtures/db/chatgpt-conversations.json'));
    await expect(page.getByTestId('chatgpt-import-result')).toContainText(
      'Imported from ChatGPT: 2 chats',
    );
    await expect(chat.sessionLinks().filter({ hasText: 'Sourdough help' })).toHaveCount(1);
    await chat.sessionLinks().filter({ hasText: 'Sourdough help' }).click();
    await expect(chat.userMessages().first()).toBeVisible();
  });

  test('a chat shares as a web page that reads on its own, prints, and imports back as a new chat', async ({
    page,
    context,
    chat,
  }, testInfo) => {
    const exportButton = page.getByRole('button', { name: 'Export', exact: true });
    const download = page.waitForEvent('download');
    await exportButton.click();
    await page.getByRole('menuitem', { name: /Web page \(\.html\)/ }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.html$/);
    // Saved under its own name, as a browser does: a page opened from disk is read by its extension.
    const path = testInfo.outputPath(file.suggestedFilename());
    await file.saveAs(path);
    const html = await readFile(path, 'utf8');
    expect(html.match(/<script/g)).toHaveLength(1);

    // Opened from disk in a browser, with no Carrel anywhere: the conversation is all there.
    const viewer = await context.newPage();
    const failedLoads: string[] = [];
    viewer.on('requestfailed', (request) => failedLoads.push(request.url()));
    await viewer.goto(`file://${path}`);
    await expect(viewer.getByRole('heading', { level: 1 })).toHaveText(
      await chat.sessionLinks().first().innerText(),
    );
    await expect(viewer.locator('article.user')).toHaveText(['You' + 'remember this']);
    await expect(viewer.locator('article.assistant')).toContainText('Stored answer.');
    expect(failedLoads).toEqual([]);
    await viewer.close();

    // Printing hands the same page to the browser's print dialog, in a frame of its own.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { printedPages: string[] }).printedPages = seen;
      new MutationObserver((records) => {
        for (const record of records)
          for (const node of record.addedNodes)
            if (node instanceof HTMLIFrameElement && node.title === 'Printing')
              seen.push(node.srcdoc);
      }).observe(document.body, { childList: true });
    });
    await exportButton.click();
    await page.getByRole('menuitem', { name: 'Print or save as PDF' }).click();
    await expect
      .poll(() =>
        page.evaluate(() => (window as unknown as { printedPages: string[] }).printedPages),
      )
      .toEqual([expect.stringContaining('Stored answer.') as unknown]);
    await expect(page.getByTestId('export-error')).toHaveCount(0);

    await page.goto('/#/settings');
    await page.getByLabel(/Import a shared chat/).setInputFiles(path);
    const result = page.getByTestId('shared-chat-import-result');
    await expect(result).toContainText('as a new chat (2 messages)');
    await result.getByRole('link', { name: 'open it' }).click();
    await expect(chat.userMessages()).toHaveText(['remember this']);
    await expect(chat.lastAnswer()).toContainText('Stored answer.');
    await expect(chat.sessionLinks()).toHaveCount(2);

    // A page that is not a shared chat is refused with the reason, and nothing is added.
    await page.goto('/#/settings');
    await page.getByLabel(/Import a shared chat/).setInputFiles({
      name: 'page.html',
      mimeType: 'text/html',
      buffer: Buffer.from('<!doctype html><p>Just a page</p>'),
    });
    await expect(page.getByText(/no chat data found/)).toBeVisible();
    await expect(chat.sessionLinks()).toHaveCount(2);
  });
});
