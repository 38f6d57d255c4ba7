// The fake web for the web tools: search APIs in three shapes, HTML pages, redirects,
// a reader service and an MCP server, all under `/web/`. Mounted by the mock LLM server and
// usable on its own with startMockWeb().
//
// | Route                                  | Answer                                                              |
// | -------------------------------------- | ------------------------------------------------------------------- |
// | POST /web/tavily/search                | Tavily shape; `Authorization: Bearer tvly-…` required                |
// | POST /web/exa/search                   | Exa shape; `x-api-key` required                                     |
// | GET  /web/searxng/search?q=&format=json| SearXNG shape; 403 without format=json (as a default instance)      |
// | GET  /web/pages/{name}                 | pages.ts (`no-cors` has no CORS header; `report.pdf` is a PDF)     |
// | GET  /web/redirect?to=URL[&status=302] | a redirect to `to`                                                  |
// | GET  /web/reader/{page URL}            | the page as plain text, like r.jina.ai                              |
// | *    /web/mcp                          | MCP over Streamable HTTP; `Authorization: Bearer mcp-…` required   |
// A query containing "nothing" finds no results.

import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleMcpRequest, type McpCallRecord } from './mcp-server';
import { FAKE_PAGES, renderReaderText } from './pages';
import { encodeExa, encodeSearxng, encodeTavily, findHits } from './search-apis';

export const WEB_PREFIX = '/web/';

export interface WebRequestRecord {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

export interface MockWeb {
  /** Answers the request if its path starts with /web/; false leaves it to the caller. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  requests(): WebRequestRecord[];
  mcpCalls(): McpCallRecord[];
  clear(): void;
}

export function createMockWeb(): MockWeb {
  const log: WebRequestRecord[] = [];
  const calls: McpCallRecord[] = [];
  return {
    async handle(req, res) {
      const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
      if (!url.pathname.startsWith(WEB_PREFIX)) return false;
      const rawBody = await readBody(req);
      const body = parseJson(rawBody);
      log.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [
            k,
            Array.isArray(v) ? v.join(', ') : (v ?? ''),
          ]),
        ),
        body,
      });
      await route(req, res, url, body, calls);
      return true;
    },
    requests: () => [...log],
    mcpCalls: () => [...calls],
    clear() {
      log.length = 0;
      calls.length = 0;
    },
  };
}

async function route(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  body: unknown,
  calls: McpCallRecord[],
): Promise<void> {
  const base = `${url.protocol}//${url.host}`;
  const path = url.pathname;
  const method = req.method ?? 'GET';
  const isPage =
    path.startsWith('/web/pages/') &&
    FAKE_PAGES[decodeURIComponent(path.slice('/web/pages/'.length))]?.hasCors === false;
  if (!isPage) setCors(res);
  if (method === 'OPTIONS') return answerPreflight(req, res);

  if (path === '/web/mcp') {
    if (req.headers.authorization?.startsWith('Bearer mcp-') !== true) {
      return sendJson(res, 401, {
        jsonrpc: '2.0',
        error: { code: -32001, message: 'Unauthorized' },
        id: null,
      });
    }
    return handleMcpRequest(req, res, body, calls);
  }
  if (path === '/web/tavily/search' && method === 'POST') {
    if (req.headers.authorization?.startsWith('Bearer tvly-') !== true) {
      return sendJson(res, 401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
    }
    const request = body as { query?: string; max_results?: number };
    const query = request.query ?? '';
    return sendJson(res, 200, encodeTavily(query, findHits(query, request.max_results ?? 5), base));
  }
  if (path === '/web/exa/search' && method === 'POST') {
    if (!req.headers['x-api-key'])
      return sendJson(res, 401, { error: 'Invalid API key', tag: 'INVALID_API_KEY' });
    const request = body as { query?: string; numResults?: number };
    return sendJson(
      res,
      200,
      encodeExa(findHits(request.query ?? '', request.numResults ?? 10), base),
    );
  }
  if (path === '/web/searxng/search' && method === 'GET') {
    if (url.searchParams.get('format') !== 'json')
      return sendText(res, 403, 'text/html', '<h1>403 Forbidden</h1>');
    const query = url.searchParams.get('q') ?? '';
    return sendJson(res, 200, encodeSearxng(query, findHits(query, 10), base));
  }
  if (path === '/web/redirect') {
    const status = Number(url.searchParams.get('status') ?? '302');
    res.writeHead(status, { location: url.searchParams.get('to') ?? '/web/pages/llamas' });
    res.end();
    return;
  }
  if (path.startsWith('/web/reader/')) {
    const target = decodeURIComponent(
      req.url?.slice(req.url.indexOf('/web/reader/') + '/web/reader/'.length) ?? '',
    );
    const name = /\/web\/pages\/([^?#]+)/.exec(target)?.[1];
    const page = name ? FAKE_PAGES[decodeURIComponent(name)] : undefined;
    if (!page) return sendText(res, 404, 'text/plain', `Reader: could not fetch ${target}`);
    return sendText(res, 200, 'text/plain; charset=utf-8', renderReaderText(page, target));
  }
  if (path.startsWith('/web/pages/')) {
    const page = FAKE_PAGES[decodeURIComponent(path.slice('/web/pages/'.length))];
    if (!page) return sendText(res, 404, 'text/html', '<h1>Not found</h1>');
    return sendText(res, 200, page.contentType, page.body);
  }
  return sendText(res, 404, 'text/plain', `Unknown fake web route ${method} ${path}`);
}

function setCors(res: ServerResponse): void {
  res.setHeader('access-control-allow-origin', '*');
  // The MCP client must read the session and protocol headers.
  res.setHeader(
    'access-control-expose-headers',
    'mcp-session-id, mcp-protocol-version, content-type',
  );
}

function answerPreflight(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
  res.setHeader(
    'access-control-allow-headers',
    req.headers['access-control-request-headers'] ?? '*',
  );
  if (req.headers['access-control-request-private-network'] === 'true') {
    res.setHeader('access-control-allow-private-network', 'true');
  }
  res.writeHead(204);
  res.end();
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(rawBody: string): unknown {
  if (rawBody === '') return undefined;
  try {
    return JSON.parse(rawBody) as unknown;
  } catch {
    return rawBody;
  }
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  sendText(res, status, 'application/json', JSON.stringify(value));
}

function sendText(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType });
  res.end(body);
}

export interface StartedMockWeb extends MockWeb {
  /** `http://127.0.0.1:PORT`; routes are under `${url}/web/`. */
  readonly url: string;
  close(): Promise<void>;
}

/** The fake web on its own port, for unit tests that need no LLM mock. */
export async function startMockWeb(): Promise<StartedMockWeb> {
  const web = createMockWeb();
  const server = createServer((req, res) => {
    web
      .handle(req, res)
      .then((isHandled) => {
        if (!isHandled) sendText(res, 404, 'text/plain', 'Not a /web/ route');
      })
      .catch((error: unknown) => {
        if (!res.headersSent)
          sendText(res, 500, 'text/plain', error instanceof Error ? error.message : String(error));
        else res.destroy();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...web,
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
