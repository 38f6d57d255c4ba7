/**
 * Bench 11: ingest throughput in the built app (Chromium, `vite preview`, real IndexedDB and the
 * app's ingest worker), as a person adds files: a project of 1, 10 and 100 MB of plain text,
 * Markdown, PDF or Word files, chosen at once in the project's file picker, timed from the choice
 * to every file listed as ready. The time per MB must stay flat as the project grows: each
 * larger project's MB/s is given as a ratio to the 1 MB project's in the same run.
 *
 *     npx tsx test/bench/ingest.bench.ts
 *     BENCH_INGEST_SIZES=1,10 BENCH_INGEST_KINDS=markdown npx tsx test/bench/ingest.bench.ts   # a quick look
 *
 * Embedding is off (downloads off, no model cached): this measures reading, counting, chunking
 * and storing. Embedding throughput is bench 6.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from '@playwright/test';
import { ProjectPage } from '../e2e/pages/project-page';
import { SettingsPage } from '../e2e/pages/settings-page';
import { startMockLlm } from '../mock-llm/server';
import { buildApp, startAppPreview } from './lib/app-preview';
import { launchChromium } from './lib/bench-browser';
import {
  DOCUMENT_KINDS,
  EXTENSIONS,
  createDocument,
  type DocumentKind,
} from './lib/ingest-documents';
import { createSection, emitSection } from './lib/report';
import { summarizeSamples, type Spread } from './lib/stats';

const DIST = process.env.BENCH_DIST ?? 'dist-bench-ingest';
const PREVIEW_PORT = Number(process.env.BENCH_PREVIEW_PORT ?? 4213);
const SIZES_MB = (process.env.BENCH_INGEST_SIZES ?? '1,10,100').split(',').map(Number);
const KINDS = (process.env.BENCH_INGEST_KINDS?.split(',') ?? DOCUMENT_KINDS) as DocumentKind[];
const RUNS = 3;
const MEGABYTE = 1_000_000;
/** Each file holds about this much text: a larger project is more files, as real ones are. */
const FILE_TEXT_BYTES = 100_000;
/** A larger project may read at most this much slower per MB than the 1 MB one. */
const FLAT_RATIO_TARGET = 0.75;
const MAX_INGEST_MS = 1_800_000;

const KIND_NAMES: Record<DocumentKind, string> = {
  text: 'plain text',
  markdown: 'Markdown',
  pdf: 'PDF',
  docx: 'Word (.docx)',
};

interface Project {
  paths: string[];
  bytes: number;
}

/** Files of `kind` in `dir` until they add up to `megabytes` (file bytes). */
async function writeProject(dir: string, kind: DocumentKind, megabytes: number): Promise<Project> {
  const paths: string[] = [];
  let bytes = 0;
  for (let index = 0; bytes < megabytes * MEGABYTE; index++) {
    const body = createDocument(kind, megabytes * 100_000 + index, FILE_TEXT_BYTES);
    const path = join(dir, `${kind}-${megabytes}mb-${String(index).padStart(4, '0')}.${EXTENSIONS[kind]}`);
    await writeFile(path, body);
    paths.push(path);
    bytes += body.byteLength;
  }
  return { paths, bytes };
}

/** A fresh profile (empty database) with a provider and model downloads off, on a new project. */
async function openEmptyProject(browser: Browser, baseURL: string, llmUrl: string) {
  const context = await browser.newContext({ baseURL, serviceWorkers: 'block' });
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`[ingest] ${error.message}`));
  const settings = new SettingsPage(page);
  await settings.open();
  await settings.addProvider({
    name: 'Mock',
    baseUrl: `${llmUrl}/v1`,
    apiKey: 'sk-bench-ingest',
    model: 'gpt-4o-mini',
  });
  await page.getByLabel('Allow downloading model files').uncheck();
  const project = new ProjectPage(page);
  await project.create('Ingest bench');
  return { context, page, project };
}

/** Seconds from choosing the files to every one of them listed as ready. */
async function timeIngest(
  browser: Browser,
  baseURL: string,
  llmUrl: string,
  project: Project,
): Promise<number> {
  const { context, page, project: projectPage } = await openEmptyProject(browser, baseURL, llmUrl);
  try {
    const started = Date.now();
    await projectPage.upload(project.paths);
    await page.waitForFunction(
      (count) =>
        document.querySelectorAll('[data-testid="project-file"][data-status="ready"]').length ===
          count &&
        document.querySelectorAll('[data-testid="upload-row"][data-status="working"]').length === 0,
      project.paths.length,
      { timeout: MAX_INGEST_MS, polling: 100 },
    );
    const seconds = (Date.now() - started) / 1000;
    const failed = await page.locator('[data-testid="upload-row"][data-status="failed"]').count();
    if (failed > 0) throw new Error(`${failed} files failed to ingest`);
    return seconds;
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  const section = createSection('ingest', '11. Ingest throughput (Chromium, the built app)');
  await buildApp(DIST);
  const preview = await startAppPreview(DIST, PREVIEW_PORT);
  const llm = await startMockLlm();
  const browser = await launchChromium();
  const dir = await mkdtemp(join(tmpdir(), 'carrel-ingest-'));
  try {
    for (const kind of KINDS) {
      let smallest: { megabytes: number; spread: Spread } | undefined;
      for (const megabytes of SIZES_MB) {
        const project = await writeProject(dir, kind, megabytes);
        const rates: number[] = [];
        for (let run = 0; run < RUNS; run++) {
          const seconds = await timeIngest(browser, preview.url, llm.url, project);
          rates.push(project.bytes / MEGABYTE / seconds);
          console.log(
            `${kind} ${megabytes} MB (${project.paths.length} files) run ${run + 1}: ${seconds.toFixed(1)} s`,
          );
        }
        const spread = summarizeSamples(rates);
        const name = `${KIND_NAMES[kind]}, ${megabytes} MB project (${project.paths.length} files of ${(project.bytes / project.paths.length / 1000).toFixed(0)} KB)`;
        if (smallest === undefined) {
          smallest = { megabytes, spread };
          section.figures.push({ name, unit: 'MB/s', spread });
        } else {
          const ratio = spread.median / smallest.spread.median;
          section.figures.push({
            name,
            unit: 'MB/s',
            spread,
            baseline: {
              name: `the ${smallest.megabytes} MB project`,
              unit: 'MB/s',
              spread: smallest.spread,
            },
            ratioLabel: `× of the ${smallest.megabytes} MB rate`,
            target: `≥ ${FLAT_RATIO_TARGET}× of the ${smallest.megabytes} MB rate`,
            isTargetMet: ratio >= FLAT_RATIO_TARGET,
          });
        }
        for (const path of project.paths) await rm(path);
      }
    }
  } finally {
    await browser.close();
    await llm.close();
    preview.close();
    await rm(dir, { recursive: true, force: true });
  }
  section.notes.push(
    `Each project is files of about ${FILE_TEXT_BYTES / 1000} KB of text (sections of prose under headings, test/bench/lib/ingest-documents.ts), so 1, 10 and 100 MB are about 10, 100 and 1,000 files; MB are file bytes (10^6). PDFs are text-only PDF 1.4 (one Helvetica stream per page of 48 lines), Word files a minimal .docx with Heading1 paragraphs.`,
    `A run: a fresh browser profile, a provider, model downloads off, a new project, then every file chosen at once in "Add files to the project"; timed until every file is listed as ready and no upload row is still working (polled every 100 ms). ${RUNS} runs per project, each in a new profile. The app reads three files at a time in its ingest worker.`,
  );
  await emitSection(section);
}

await main();
