/**
 * Bench 7: the JavaScript loaded before first paint (the entry script of index.html, its
 * modulepreloads and their static imports, gzipped with zlib) and the first contentful paint of
 * the app shell in Chromium (median of 5 cold loads of `vite preview`). The notes list the
 * largest chunks left out of that set, which load on demand. Then time to interactive on a cold
 * start: the first screen is in the page and the main thread has had no long task for 5 s.
 *
 *     npx tsx test/bench/startup.bench.ts
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildApp, startAppPreview } from './lib/app-preview';
import type { Page } from '@playwright/test';
import { launchChromium } from './lib/bench-browser';
import { createSection, emitSection } from './lib/report';
import { summarizeSamples } from './lib/stats';

const DIST = process.env.BENCH_DIST ?? 'dist-bench';
const PREVIEW_PORT = Number(process.env.BENCH_PREVIEW_PORT ?? 4210);
const GZIP_TARGET_KB = 150;
const PAINT_RUNS = 5;
/** How many of the chunks loaded after first paint the notes name. */
const LATER_CHUNKS_LISTED = 8;
const SHELL_MARK = 'carrel-bench-shell';
/** Long tasks, as the Long Tasks API counts them; interactive once none came for QUIET_MS. */
const LONG_TASK_MS = 50;
const QUIET_MS = 5_000;
/** A cold start that is still busy after this long is reported as such, not waited for. */
const MAX_TTI_WAIT_MS = 30_000;

const STATIC_IMPORT =
  /(?:^|[;}\s])(?:import|export)\s*(?:[\w$*{}\s,]*?\bfrom\s*)?["'](\.{1,2}\/[^"']+\.js)["']/g;
const ENTRY_TAGS =
  /<(?:script[^>]*type="module"[^>]*src|link[^>]*rel="modulepreload"[^>]*href)="([^"]+\.js)"/g;

/** Every script the browser fetches before running the app: entries and their static imports. */
async function collectInitialScripts(): Promise<Map<string, Buffer>> {
  const html = await readFile(join(DIST, 'index.html'), 'utf8');
  return collectStaticImports([...html.matchAll(ENTRY_TAGS)].map((match) => (match[1] as string).replace(/^\//, '')));
}

/** The scripts `entries` (paths in the build) load before they run: themselves and their static imports. */
async function collectStaticImports(entries: readonly string[]): Promise<Map<string, Buffer>> {
  const pending = [...entries];
  const scripts = new Map<string, Buffer>();
  while (pending.length > 0) {
    const path = pending.pop() as string;
    if (scripts.has(path)) continue;
    const body = await readFile(join(DIST, path));
    scripts.set(path, body);
    for (const match of body.toString('utf8').matchAll(STATIC_IMPORT))
      pending.push(posix.normalize(posix.join(dirname(path), match[1] as string)));
  }
  return scripts;
}

/** Bytes of these scripts, as they are and gzipped (level 9). */
function measureScripts(scripts: ReadonlyMap<string, Buffer>): { rawBytes: number; gzipBytes: number } {
  let rawBytes = 0;
  let gzipBytes = 0;
  for (const body of scripts.values()) {
    rawBytes += body.length;
    gzipBytes += gzipSync(body, { level: 9 }).length;
  }
  return { rawBytes, gzipBytes };
}

/**
 * The biggest scripts of the build that are not loaded at startup, by gzip size: what loads on
 * demand. Worker entries (`*.worker-*.js`) are left out: they never run on the page's thread.
 */
async function listLaterChunks(initial: ReadonlyMap<string, Buffer>): Promise<string[]> {
  const names = (await readdir(join(DIST, 'assets'))).filter(
    (name) => name.endsWith('.js') && !/\.worker-[\w-]+\.js$/.test(name),
  );
  const sizes: Array<{ name: string; gzipBytes: number }> = [];
  for (const name of names) {
    if (initial.has(`assets/${name}`)) continue;
    const body = await readFile(join(DIST, 'assets', name));
    sizes.push({ name, gzipBytes: gzipSync(body, { level: 9 }).length });
  }
  return sizes
    .sort((a, b) => b.gzipBytes - a.gzipBytes)
    .slice(0, LATER_CHUNKS_LISTED)
    .map(({ name, gzipBytes }) => `${name} ${(gzipBytes / 1024).toFixed(1)} KB`);
}

/**
 * Time to interactive, as Lighthouse defines it: the end of the last long task before a quiet
 * window of QUIET_MS, and not before the shell is there. Read from the page's own entries.
 */
async function waitForInteractive(page: Page, shellAt: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const { now, ends } = await page.evaluate(() => ({
      now: performance.now(),
      ends: (globalThis as Record<string, unknown>)['__longTaskEnds'] as number[],
    }));
    const lastEnd = Math.max(shellAt, ...ends);
    if (now - lastEnd >= QUIET_MS) return lastEnd;
    if (Date.now() - started > MAX_TTI_WAIT_MS)
      throw new Error(`The cold start still had long tasks after ${MAX_TTI_WAIT_MS / 1000} s.`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function main(): Promise<void> {
  const section = createSection('startup', '7. Startup');
  await buildApp(DIST);
  const scripts = await collectInitialScripts();
  const { rawBytes, gzipBytes } = measureScripts(scripts);
  section.values.push({
    name: `JavaScript before first paint, gzip (${scripts.size} files)`,
    value: Number((gzipBytes / 1024).toFixed(1)),
    unit: 'KB',
    target: `< ${GZIP_TARGET_KB} KB`,
    isTargetMet: gzipBytes / 1024 < GZIP_TARGET_KB,
  });
  section.values.push({
    name: 'the same, uncompressed',
    value: Number((rawBytes / 1024).toFixed(1)),
    unit: 'KB',
  });
  // The chat engine's worker: what a first question waits for before the worker can set up
  // (its stores and the tokenizer's ranks, loaded then, are not counted).
  const agentEntries = (await readdir(join(DIST, 'assets'))).filter((name) => /^agent\.worker-[\w-]+\.js$/.test(name));
  const agentScripts = await collectStaticImports(agentEntries.map((name) => `assets/${name}`));
  const agent = measureScripts(agentScripts);
  section.values.push({
    name: `agent worker: its script and static imports, gzip (${agentScripts.size} files)`,
    value: Number((agent.gzipBytes / 1024).toFixed(1)),
    unit: 'KB',
  });
  section.values.push({
    name: 'agent worker: the same, uncompressed',
    value: Number((agent.rawBytes / 1024).toFixed(1)),
    unit: 'KB',
  });

  const preview = await startAppPreview(DIST, PREVIEW_PORT);
  const browser = await launchChromium();
  try {
    const paints: number[] = [];
    const shellReady: number[] = [];
    const interactive: number[] = [];
    const longTaskCounts: number[] = [];
    for (let run = 0; run < PAINT_RUNS; run++) {
      // A fresh context each time: no HTTP cache, no service worker, no IndexedDB.
      const context = await browser.newContext({ serviceWorkers: 'block' });
      const page = await context.newPage();
      // Marks the moment <main> enters the DOM, in the page itself: reading performance.now()
      // after a Playwright wait would add the round trips and whatever the page runs meanwhile.
      await page.addInitScript((markName) => {
        const observer = new MutationObserver(() => {
          if (!document.querySelector('main, [role="main"]')) return;
          performance.mark(markName);
          observer.disconnect();
        });
        observer.observe(document, { childList: true, subtree: true });
        // Every long task from the start of the page: time to interactive is judged from them.
        const ends: number[] = [];
        (globalThis as Record<string, unknown>)['__longTaskEnds'] = ends;
        new PerformanceObserver((entries) => {
          for (const entry of entries.getEntries()) ends.push(entry.startTime + entry.duration);
        }).observe({ type: 'longtask' });
      }, SHELL_MARK);
      await page.goto(preview.url);
      await page.waitForFunction(
        () => performance.getEntriesByName('first-contentful-paint').length > 0,
        null,
        { timeout: 30_000 },
      );
      paints.push(
        await page.evaluate(
          () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
        ),
      );
      await page.locator('main, [role="main"]').first().waitFor({ timeout: 30_000 });
      const shellAt = await page.evaluate(
        (markName) => performance.getEntriesByName(markName)[0]?.startTime ?? NaN,
        SHELL_MARK,
      );
      shellReady.push(shellAt);
      interactive.push(await waitForInteractive(page, shellAt));
      longTaskCounts.push(
        await page.evaluate(
          () => ((globalThis as Record<string, unknown>)['__longTaskEnds'] as number[]).length,
        ),
      );
      await context.close();
    }
    section.figures.push({
      name: 'first contentful paint, cold load',
      unit: 'ms',
      spread: summarizeSamples(paints),
    });
    section.figures.push({
      name: 'app shell (<main>) present, cold load',
      unit: 'ms',
      spread: summarizeSamples(shellReady),
    });
    section.figures.push({
      name: `time to interactive, cold start (shell present, then ${QUIET_MS / 1000} s without a long task)`,
      unit: 'ms',
      spread: summarizeSamples(interactive),
    });
    section.values.push({
      name: `long tasks > ${LONG_TASK_MS} ms during a cold start (per run)`,
      value: longTaskCounts.join(' / '),
      unit: '',
    });
  } finally {
    await browser.close();
    preview.close();
  }
  section.notes.push(
    `Initial scripts: ${[...scripts.keys()].join(', ')}. Sizes from ${DIST}/index.html and the static-import graph, gzip level 9.`,
    'Loaded on demand, not at startup: the Markdown renderer (markdown-it, DOMPurify; fetched right after first paint), KaTeX with its stylesheet (when an answer has math), highlight.js (when one has code), the first-use screen (after the shell, on a first visit only), the Settings, Agents and Project screens, the state of the project screen (uploads, project search), of the embedding and built-in model settings and of the file viewer, the embedding worker\'s client, the providers\' preset table (onboarding, the provider form), the web tools and MCP forms\' checks, the context inspector, the search (MiniSearch), file viewer and shortcuts dialogs, the side-by-side answers, the export menu, the artifact panel, ChatGPT import and Markdown export, backups and the import journal (unless an import was cut short), read-aloud and dictation\'s text handling, the workers\' stores, the tokenizer ranks, pdf.js and transformers.js (workers). The service worker registers after first paint.',
    `Largest chunks loaded later, worker entries aside (gzip): ${(await listLaterChunks(scripts)).join(', ')}.`,
    'Both timings come from the page itself: the paint entry, and a performance mark set when <main> enters the DOM (so Playwright round trips and work queued after first paint do not count). Each run is a fresh context with the service worker blocked, against `vite preview` on 127.0.0.1.',
    `Time to interactive: the later of the shell's mark and the end of the last long task (> ${LONG_TASK_MS} ms, Long Tasks API, observed from the page's start) followed by ${QUIET_MS / 1000} s without one — Lighthouse's definition, without its network-quiet condition. A cold start is a first visit: no database yet; the shell paints, then the first-use screen arrives as its own chunk.`,
  );
  await emitSection(section);
}

await main();
