import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createCharacterBudget,
  createOpenUrlTool,
  MAX_PAGE_CHARACTERS,
  type OpenUrlDeps,
} from '../../../../src/core/agent/tools/open-url.tool';
import { indexConversation } from '../../../../src/core/agent/tools/url-policy';
import type { ConfirmationRequest, HttpFetcher } from '../../../../src/core/ports';
import { createHttpFetcher } from '../../../../src/workers/agent/http-fetcher';
import { createReadableTextExtractor } from '../../../../src/workers/agent/readable-text';
import { startMockWeb, type StartedMockWeb } from '../../../mock-llm/web/web-server';

let web: StartedMockWeb;
beforeAll(async () => {
  web = await startMockWeb();
});
afterAll(() => web.close());
beforeEach(() => web.clear());

const signal = new AbortController().signal;

function buildDeps(
  overrides: Partial<OpenUrlDeps> = {},
): OpenUrlDeps & { asked: ConfirmationRequest[] } {
  const asked: ConfirmationRequest[] = [];
  return {
    http: createHttpFetcher(),
    extractor: createReadableTextExtractor(),
    confirmation: {
      requestConfirmation(request) {
        asked.push(request);
        return Promise.resolve(false);
      },
    },
    // The fake web listens on 127.0.0.1, so these tests allow the private network.
    policy: { shouldAllowPrivateNetwork: true },
    reader: null,
    budget: createCharacterBudget(100_000),
    conversation: indexConversation(['My badge number is ZX998877, please keep it private.']),
    searchedUrls: new Set(),
    asked,
    ...overrides,
  };
}

describe('open_url', () => {
  it('opens several pages at once and returns their readable text with URLs', async () => {
    const tool = createOpenUrlTool(buildDeps());
    const output = await tool.execute(
      { urls: [`${web.url}/web/pages/llamas`, `${web.url}/web/pages/alpacas`] },
      { signal },
    );
    expect(output.kind).toBe('documents');
    if (output.kind !== 'documents') return;
    expect(output.documents.map((d) => [d.title, d.url])).toEqual([
      ['Llamas of the Andes', `${web.url}/web/pages/llamas`],
      ['Alpaca care guide', `${web.url}/web/pages/alpacas`],
    ]);
    const [llamas] = output.documents;
    expect(llamas?.contents).toContain('Llamas live 15 to 25 years');
    expect(llamas?.contents).not.toMatch(/tracker|Privacy|Shop/);
    expect(llamas?.metadata).toBe(`URL: ${web.url}/web/pages/llamas`);
    expect(output.notes).toBeUndefined();
  });

  it('refuses a disallowed URL with a result that says why, and never fetches it', async () => {
    const tool = createOpenUrlTool(buildDeps({ policy: { shouldAllowPrivateNetwork: false } }));
    const output = await tool.execute(
      { urls: [`${web.url}/web/pages/llamas`, 'file:///etc/passwd'] },
      { signal },
    );
    expect(output).toEqual({
      kind: 'text',
      isError: true,
      content: expect.stringMatching(
        /Not opened: http:\/\/127\.0\.0\.1:\d+\/web\/pages\/llamas: 127\.0\.0\.1 is a loopback address[\s\S]*Not opened: file:\/\/\/etc\/passwd: Only http and https/,
      ) as string,
    });
    expect(web.requests()).toHaveLength(0);
  });

  it('lists the pages it could not open next to the ones it could', async () => {
    const tool = createOpenUrlTool(buildDeps());
    const output = await tool.execute(
      {
        urls: [
          `${web.url}/web/pages/llamas`,
          `${web.url}/web/pages/missing`,
          `${web.url}/web/pages/report.pdf`,
        ],
      },
      { signal },
    );
    expect(output.kind === 'documents' && output.notes).toEqual([
      expect.stringMatching(/missing: the site answered HTTP 404/) as string,
      expect.stringMatching(/report\.pdf: it is a application\/pdf file/) as string,
    ]);
  });

  it('asks the user before sending conversation text in a query string, and obeys a refusal', async () => {
    const deps = buildDeps();
    const url = `${web.url}/web/pages/llamas?id=zx998877`;
    const output = await createOpenUrlTool(deps).execute({ urls: [url] }, { signal });
    expect(deps.asked).toEqual([
      {
        kind: 'open_url_with_conversation_text',
        toolName: 'open_url',
        url,
        reason: expect.stringContaining('"zx998877"') as string,
      },
    ]);
    expect(output).toMatchObject({
      kind: 'text',
      isError: true,
      content: expect.stringMatching(/did not allow it/) as string,
    });
    expect(web.requests()).toHaveLength(0);
  });

  it('opens the page once the user agrees', async () => {
    const deps = buildDeps({ confirmation: { requestConfirmation: () => Promise.resolve(true) } });
    const output = await createOpenUrlTool(deps).execute(
      { urls: [`${web.url}/web/pages/llamas?id=zx998877`] },
      { signal },
    );
    expect(output.kind).toBe('documents');
  });

  it('does not ask for a URL that a search of this turn returned', async () => {
    const url = `${web.url}/web/pages/llamas?id=zx998877`;
    const deps = buildDeps({ searchedUrls: new Set([url]) });
    const output = await createOpenUrlTool(deps).execute({ urls: [url] }, { signal });
    expect(deps.asked).toEqual([]);
    expect(output.kind).toBe('documents');
  });

  it('caps one page and spends the turn budget in the order the model listed the pages', async () => {
    const deps = buildDeps({ budget: createCharacterBudget(MAX_PAGE_CHARACTERS + 50) });
    const tool = createOpenUrlTool(deps);
    const output = await tool.execute(
      { urls: [`${web.url}/web/pages/big`, `${web.url}/web/pages/llamas`] },
      { signal },
    );
    if (output.kind !== 'documents') throw new Error('expected documents');
    const [big, llamas] = output.documents;
    expect(big?.contents.length).toBeLessThan(MAX_PAGE_CHARACTERS + 100);
    expect(big?.contents).toMatch(/the rest of the page was cut\]$/);
    expect(big?.metadata).toContain('shortened');
    expect(llamas?.contents.length).toBeLessThanOrEqual(50 + 60);

    const later = await tool.execute({ urls: [`${web.url}/web/pages/alpacas`] }, { signal });
    expect(later).toMatchObject({
      kind: 'text',
      content: expect.stringMatching(/reading budget is used up/) as string,
    });
  });

  it('reads a site the browser may not read through the reader URL', async () => {
    const direct = createHttpFetcher();
    // What a browser does with a page without CORS headers: the fetch itself fails.
    const browserLike: HttpFetcher = {
      fetch: (url, request) =>
        url.startsWith(`${web.url}/web/pages/no-cors`)
          ? Promise.resolve({ ok: false, error: { code: 'network', message: 'Failed to fetch' } })
          : direct.fetch(url, request),
    };
    const deps = buildDeps({
      http: browserLike,
      reader: {
        urlTemplate: `${web.url}/web/reader/{raw_url}`,
        shouldAlwaysUse: false,
        headers: { 'x-reader-key': 'r-1' },
      },
    });
    const page = `${web.url}/web/pages/no-cors`;
    const output = await createOpenUrlTool(deps).execute({ urls: [page] }, { signal });
    expect(output.kind === 'documents' && output.documents[0]).toMatchObject({
      url: page,
      contents: expect.stringContaining('Guanacos are the wild ancestors of llamas') as string,
    });
    expect(web.requests().map((r) => r.path)).toEqual([`/web/reader/${page}`]);
    expect(web.requests()[0]?.headers['x-reader-key']).toBe('r-1');
  });

  it('rejects more URLs than one call may open, through its input schema', () => {
    const tool = createOpenUrlTool(buildDeps());
    const parsed = tool.inputSchema.safeParse({
      urls: Array.from({ length: 6 }, (_, i) => `https://e.example/${i}`),
    });
    expect(parsed.success).toBe(false);
  });
});
