import { build } from 'esbuild';
import {
  ORT_EXTERN_WASM_CONDITION,
  ORT_WEB_IMPORT,
  ORT_WEB_WASM_ENTRY,
} from '../../../vite.config';
import { createServer, type Server } from 'node:http';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test';

/**
 * Runs a bench page in Chromium: esbuild bundles the page's entry, a tiny static server on
 * 127.0.0.1 serves it cross-origin isolated (COOP/COEP, so SharedArrayBuffer threads work), and
 * Playwright drives it. Nothing leaves 127.0.0.1.
 */

export const BENCH_STATIC_PORT = Number(process.env.BENCH_STATIC_PORT ?? 4211);
const OUT_DIR = resolve('test-results/bench/pages');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.onnx': 'application/octet-stream',
  '.txt': 'text/plain',
};

export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** Serves files from `roots` (first match wins) with the isolation headers and `headers`. */
export function startStaticServer(
  roots: Record<string, string>,
  port: number,
  headers: Readonly<Record<string, string>> = {},
): Promise<Server> {
  const server = createServer((request, response) => {
    void (async () => {
      const path = decodeURIComponent(new URL(request.url ?? '/', 'http://127.0.0.1').pathname);
      const prefix = Object.keys(roots).find((candidate) => path.startsWith(candidate));
      const root = prefix === undefined ? undefined : roots[prefix];
      const file =
        root === undefined || prefix === undefined
          ? ''
          : normalize(join(root, path.slice(prefix.length)));
      if (root === undefined || !file.startsWith(root) || !existsSync(file)) {
        response.writeHead(404, { ...ISOLATION_HEADERS, ...headers }).end();
        return;
      }
      const body = await readFile(file);
      response
        .writeHead(200, {
          ...ISOLATION_HEADERS,
          ...headers,
          'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
        })
        .end(body);
    })();
  });
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => done(server));
  });
}

/** Bundles `entry` into `<name>.js` next to a page that loads it. */
export async function bundleBenchPage(name: string, entry: string): Promise<string> {
  await mkdir(OUT_DIR, { recursive: true });
  await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    outfile: join(OUT_DIR, `${name}.js`),
    logLevel: 'warning',
    // Minified as the app's own build is: a page's start (its script fetched, parsed and run)
    // is part of what the cold-open bench measures.
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    // ONNX Runtime's WASM-only entry for transformers.js, as the app's build resolves it.
    alias: { [ORT_WEB_IMPORT]: ORT_WEB_WASM_ENTRY },
    conditions: [ORT_EXTERN_WASM_CONDITION],
  });
  await writeFile(
    join(OUT_DIR, `${name}.html`),
    `<!doctype html><meta charset="utf-8"><title>${name}</title><script type="module" src="./${name}.js"></script>\n`,
  );
  return OUT_DIR;
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** The Chromium to drive: CARREL_CHROMIUM, else Debian's, else Playwright's own. */
function chromiumOptions(): { executablePath?: string; args: string[] } {
  const executablePath =
    process.env.CARREL_CHROMIUM ??
    (existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined);
  return { ...(executablePath ? { executablePath } : {}), args: CHROMIUM_ARGS };
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch(chromiumOptions());
}

/** Chromium on its own profile folder (IndexedDB, downloads), for benches that measure storage. */
export function launchPersistentChromium(profile: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, { ...chromiumOptions(), acceptDownloads: true });
}

/**
 * Opens `<name>.html` from the bench server and waits for the bundle to define
 * `globalThis.benchReady`.
 */
export async function openBenchPage(browser: Browser, name: string): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (error) => console.error(`[${name}] ${error.message}`));
  await page.goto(`http://127.0.0.1:${BENCH_STATIC_PORT}/pages/${name}.html`);
  await page.waitForFunction(() => 'benchReady' in globalThis, null, { timeout: 60_000 });
  return page;
}

export interface BrowserBench {
  browser: Browser;
  server: Server;
  close(): Promise<void>;
}

/**
 * Bundles the named entries, serves them under /pages/ (plus `extraRoots`, and `headers` on every
 * response), and launches Chromium.
 */
export async function startBrowserBench(
  pages: Record<string, string>,
  extraRoots: Record<string, string> = {},
  headers: Readonly<Record<string, string>> = {},
): Promise<BrowserBench> {
  let outDir = OUT_DIR;
  for (const [name, entry] of Object.entries(pages)) outDir = await bundleBenchPage(name, entry);
  const server = await startStaticServer(
    { '/pages/': outDir, ...extraRoots },
    BENCH_STATIC_PORT,
    headers,
  );
  const browser = await launchChromium();
  return {
    browser,
    server,
    async close() {
      await browser.close();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
