import { expect, test } from '../fixtures';

/**
 * Hostile model output, streamed at random chunk sizes into the real app.
 * Every payload tries to run `window.__carrelPwned = …` or to load something from evil.test.
 */
const CANARY = '__carrelPwned';
const EVIL = 'http://evil.test';

const PAYLOADS = [
  `<script>window.${CANARY}=1</script>`,
  `<img src=x onerror="window.${CANARY}=2">`,
  `<svg onload="window.${CANARY}=3"><circle r=1 /></svg>`,
  `<iframe srcdoc="<script>parent.${CANARY}=4</script>"></iframe>`,
  `[click me](javascript:window.${CANARY}=5)`,
  `[ref link][evil]\n\n[evil]: javascript:window.${CANARY}=6`,
  `[data link](data:text/html,<script>parent.${CANARY}=7</script>)`,
  `<a href="jav&#x09;ascript:window.${CANARY}=8">tabbed scheme</a>`,
  `<math><mtext><table><mglyph><style><img src=x onerror="window.${CANARY}=9">`,
  `<noscript><p title="</noscript><img src=x onerror=window.${CANARY}=10>">`,
  `<form><math><mtext></form><form><mglyph><svg><mtext><style><path id="</style><img onerror=window.${CANARY}=11 src=1>">`,
  `<details open ontoggle="window.${CANARY}=12">x</details>`,
  `![remote image](${EVIL}/pixel.png)`,
  `<img src="${EVIL}/raw.png">`,
  `<object data="javascript:window.${CANARY}=13"></object>`,
  `<a href="${EVIL}/page">an external link</a> and [markdown external](${EVIL}/md)`,
  '```html\n<script>alert(1)</script>\n```',
  `$\\href{javascript:window.${CANARY}=14}{katex link}$`,
].join('\n\n');

function pickChunkSize(seed: number): number {
  return 1 + ((seed * 2654435761) % 13);
}

test.describe('hostile model output', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.provider({ name: 'Mock OpenAI', baseUrl: `${llm.url}/v1`, apiKey: 'sk-e2e-xss', model: 'gpt-4o-mini' }, { open: '/#/settings' });
  });

  for (const seed of [1, 2, 3]) {
    test(`runs no script, loads nothing remote and leaves no active link (chunk seed ${seed})`, async ({ page, chat, llm }) => {
      const appOrigin = new URL(page.url()).origin;
      const foreignRequests: string[] = [];
      page.on('request', (request) => {
        const origin = new URL(request.url()).origin;
        if (origin !== appOrigin && origin !== llm.url) foreignRequests.push(request.url());
      });
      page.on('dialog', (dialog) => {
        foreignRequests.push(`dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      llm.setScenario({ kind: 'text', text: PAYLOADS, chunkSize: pickChunkSize(seed) });

      await chat.newChat();
      await chat.send(`<img src=x onerror="window.${CANARY}=99"> hostile title ${seed}`);
      await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete', { timeout: 20_000 });
      await expect(chat.lastAnswer()).toContainText('an external link');
      // Reloaded, the stored answer renders through the same path.
      await page.reload();
      await expect(chat.lastAnswer()).toContainText('an external link');
      // Until the Markdown renderer and KaTeX have loaded, the answer shows as plain text: the
      // checks below are about the rendered HTML.
      await expect(chat.lastAnswer().locator('.markdown-pending, .math-pending')).toHaveCount(0);

      const report = await page.evaluate((canary) => {
        const active = [...document.querySelectorAll('[href], [src], [srcdoc], [action], [formaction], [data]')].flatMap((element) =>
          ['href', 'src', 'srcdoc', 'action', 'formaction', 'data']
            .map((name) => element.getAttribute(name) ?? '')
            // Browsers drop tabs and newlines inside a scheme ("jav\tascript:"), so this check does too.
            .filter((value) => /^\s*(javascript:|data:text\/html)/i.test(value.replace(/\s/g, ''))),
        );
        const externalLinks = [...document.querySelectorAll<HTMLAnchorElement>('a[href]')].filter((a) => a.origin !== location.origin);
        return {
          canary: (window as unknown as Record<string, unknown>)[canary],
          active,
          scripts: document.querySelectorAll('main script, [data-testid="assistant-message"] script').length,
          iframes: document.querySelectorAll('[data-testid="assistant-message"] iframe').length,
          externalLinks: externalLinks.length,
          unsafeExternalLinks: externalLinks
            .filter((a) => !(a.relList.contains('noopener') && a.relList.contains('noreferrer')))
            .map((a) => a.outerHTML),
        };
      }, CANARY);
      expect(report.canary, 'a payload ran').toBeUndefined();
      expect(report.active, 'active javascript:/data:text/html URLs').toEqual([]);
      expect(report.scripts).toBe(0);
      expect(report.iframes).toBe(0);
      expect(report.externalLinks, 'the external links survived as links').toBeGreaterThan(0);
      expect(report.unsafeExternalLinks, 'external links without rel="noopener noreferrer"').toEqual([]);
      expect(foreignRequests, 'requests made by rendering').toEqual([]);
    });
  }
});
