/**
 * Bench 9: exporting and importing a backup of a database of 50 MB and 200 MB (and, with
 * `--large`, 1 GB next to 50 MB), in Chromium with the database on disk as in the app: time,
 * and the peak memory of the browser's processes and of the page's JavaScript heap while each
 * runs, next to the size of the data. The imported database must export to the same file.
 *
 *     npx tsx test/bench/backup.bench.ts            # 50 MB and 200 MB
 *     npx tsx test/bench/backup.bench.ts --large    # 50 MB and 1 GB (several minutes)
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type Page } from '@playwright/test';
import {
  BENCH_STATIC_PORT,
  bundleBenchPage,
  launchPersistentChromium,
  startStaticServer,
} from './lib/bench-browser';
import { withMemorySampling, type MemorySample } from './lib/process-memory';
import { createSection, emitSection, spreadOf, type BenchSection } from './lib/report';
import type { SeedFigures } from './pages/backup.page';
import { summarizeSamples } from './lib/stats';

const MEGABYTE = 1024 * 1024;
const isLarge = process.argv.includes('--large');
/** BENCH_BACKUP_SIZES_MB=5,20 tries the bench out on small databases. */
const SIZES_MB =
  process.env.BENCH_BACKUP_SIZES_MB?.split(',').map(Number) ?? (isLarge ? [50, 1024] : [50, 200]);
const SOURCE_DB = 'carrel-bench-backup-source';
/** Memory is judged bounded when data this many times larger at most doubles the peak. */
const MIN_SIZE_RATIO_JUDGED = 10;
const MAX_BOUNDED_MEMORY_RATIO = 2;
const RESTORED_DB = 'carrel-bench-backup-restored';
/**
 * Runs of each phase per size: three where a run takes a minute or two, so a peak or a time is a
 * median with its spread rather than one sample of a noisy machine; one for the 1 GB database,
 * whose import alone takes ten minutes.
 */
const RUNS_UP_TO_MB = 200;
const runsAt = (targetMb: number) => (targetMb <= RUNS_UP_TO_MB ? 3 : 1);

interface PhaseFigures {
  ms: number;
  idle: MemorySample;
  peak: MemorySample;
  firstHalfPeak: MemorySample;
  secondHalfPeak: MemorySample;
}

interface SizeFigures {
  targetMb: number;
  seed: SeedFigures;
  readMs: number;
  fileBytes: number;
  /** Every run of the phase, in order; the round trip checks the first export and last import. */
  exports: PhaseFigures[];
  imports: (PhaseFigures & { rows: number })[];
  isRoundTripEqual: boolean;
  countsEqual: boolean;
}

type BenchGlobals = {
  seedBackupDatabase(name: string, bytes: number): Promise<SeedFigures>;
  readEveryRow(name: string): Promise<{ ms: number; rows: number }>;
  exportDatabase(name: string): Promise<{ ms: number; bytes: number }>;
  releaseExport(): void;
  importDatabase(name: string): Promise<{ ms: number; rows: number }>;
  countRows(name: string): Promise<Record<string, number>>;
  deleteBenchDatabase(name: string): Promise<void>;
};

async function openPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`[backup] ${error.message}`));
  await page.goto(`http://127.0.0.1:${BENCH_STATIC_PORT}/pages/backup.html`);
  await page.waitForFunction(() => 'benchReady' in globalThis, null, { timeout: 60_000 });
  return page;
}

const call = <Name extends keyof BenchGlobals>(
  page: Page,
  name: Name,
  ...args: Parameters<BenchGlobals[Name]>
): Promise<Awaited<ReturnType<BenchGlobals[Name]>>> =>
  page.evaluate(
    ([fn, params]) =>
      (globalThis as unknown as Record<string, (...p: unknown[]) => unknown>)[fn]!(...params),
    [name, args] as const,
  ) as Promise<Awaited<ReturnType<BenchGlobals[Name]>>>;

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Exports `db` as the app does (the file is downloaded), measuring memory meanwhile. */
async function exportToFile(
  context: BrowserContext,
  db: string,
): Promise<PhaseFigures & { path: string; bytes: number; remove(): Promise<void> }> {
  const page = await openPage(context);
  const cdp = await context.newCDPSession(page);
  const { result, ...memory } = await withMemorySampling(cdp, async () => {
    const [download, figures] = await Promise.all([
      page.waitForEvent('download', { timeout: 0 }),
      call(page, 'exportDatabase', db),
    ]);
    // The phase ends once the file is on disk, as it does for the person exporting.
    const path = await download.path();
    return { ...figures, path, remove: () => download.delete() };
  });
  await call(page, 'releaseExport');
  await cdp.detach();
  await page.close();
  return { ...result, ...memory };
}

async function measureSize(context: BrowserContext, targetMb: number): Promise<SizeFigures> {
  console.log(`  seeding ${targetMb} MB…`);
  let page = await openPage(context);
  const seed = await call(page, 'seedBackupDatabase', SOURCE_DB, targetMb * MEGABYTE);
  await page.close();

  page = await openPage(context);
  const read = await call(page, 'readEveryRow', SOURCE_DB);
  await page.close();

  const runs = runsAt(targetMb);
  console.log(`  exporting ${targetMb} MB (${runs} run${runs === 1 ? '' : 's'})…`);
  const first = await exportToFile(context, SOURCE_DB);
  const exports: PhaseFigures[] = [first];
  for (let run = 1; run < runs; run++) {
    const again = await exportToFile(context, SOURCE_DB);
    await again.remove();
    exports.push(again);
  }

  const imports: (PhaseFigures & { rows: number })[] = [];
  for (let run = 0; run < runs; run++) {
    console.log(`  importing ${targetMb} MB (run ${run + 1} of ${runs})…`);
    if (run > 0) {
      // Each run imports into an empty database, as the first did.
      page = await openPage(context);
      await call(page, 'deleteBenchDatabase', RESTORED_DB);
      await page.close();
    }
    page = await openPage(context);
    await page.setInputFiles('#backup-file', first.path);
    const cdp = await context.newCDPSession(page);
    const importing = await withMemorySampling(cdp, () =>
      call(page, 'importDatabase', RESTORED_DB),
    );
    await cdp.detach();
    await page.close();
    const { result, ...memory } = importing;
    imports.push({ ...memory, ...result });
  }

  console.log(`  checking the round trip…`);
  const second = await exportToFile(context, RESTORED_DB);
  const [firstHash, secondHash] = await Promise.all([sha256(first.path), sha256(second.path)]);
  page = await openPage(context);
  const [sourceCounts, restoredCounts] = [
    await call(page, 'countRows', SOURCE_DB),
    await call(page, 'countRows', RESTORED_DB),
  ];
  await call(page, 'deleteBenchDatabase', SOURCE_DB);
  await call(page, 'deleteBenchDatabase', RESTORED_DB);
  await page.close();
  const fileBytes = (await stat(first.path)).size;
  await first.remove();
  await second.remove();
  const figures: SizeFigures = {
    targetMb,
    seed,
    readMs: read.ms,
    fileBytes,
    exports,
    imports,
    isRoundTripEqual: firstHash === secondHash && first.bytes === second.bytes,
    countsEqual: JSON.stringify(sourceCounts) === JSON.stringify(restoredCounts),
  };
  console.log(JSON.stringify({ ...figures, sourceCounts, restoredCounts }));
  return figures;
}

const mib = (bytes: number) => bytes / MEGABYTE;
const over = (phase: PhaseFigures, key: keyof MemorySample) => phase.peak[key] - phase.idle[key];
const runsOf = (result: SizeFigures, phase: 'export' | 'import'): PhaseFigures[] =>
  phase === 'export' ? result.exports : result.imports;
/** The spread over a phase's runs of `measure`. */
const across = (runs: readonly PhaseFigures[], measure: (run: PhaseFigures) => number) =>
  summarizeSamples(runs.map(measure));

function report(section: BenchSection, results: SizeFigures[]): void {
  const small = results[0]!;
  for (const result of results) {
    const dataMiB = mib(result.seed.contentBytes);
    const label = `${Math.round(dataMiB)} MB of data`;
    const perMb = (run: PhaseFigures) => run.ms / dataMiB;
    section.figures.push({
      name: `export, ${label}: time per MB of data`,
      unit: 'ms/MB',
      spread: across(result.exports, perMb),
      baseline: {
        name: 'reading every row of the same database (no checks, no encoding), per MB',
        unit: 'ms/MB',
        spread: spreadOf(result.readMs / dataMiB),
      },
      ratioLabel: '× (read ÷ export)',
    });
    section.figures.push({
      name: `import, ${label}: time per MB of data`,
      unit: 'ms/MB',
      spread: across(result.imports, perMb),
      baseline: {
        name: 'export of the same database, per MB',
        unit: 'ms/MB',
        spread: across(result.exports, perMb),
      },
      ratioLabel: '× (export ÷ import)',
    });
  }
  for (const result of results) {
    const dataMiB = mib(result.seed.contentBytes);
    const label = `${Math.round(dataMiB)} MB of data`;
    for (const phase of ['export', 'import'] as const) {
      const runs = runsOf(result, phase);
      section.figures.push({
        name: `${phase}, ${label}: peak memory of all browser processes above idle (PSS)`,
        unit: 'MiB',
        spread: across(runs, (run) => over(run, 'totalMiB')),
        baseline: { name: 'the data', unit: 'MiB', spread: spreadOf(dataMiB) },
        ratioLabel: '× (data ÷ peak)',
      });
      section.figures.push({
        name: `${phase}, ${label}: peak of all browser processes above idle in the second half of the ${phase}`,
        unit: 'MiB',
        spread: across(runs, (run) => run.secondHalfPeak.totalMiB - run.idle.totalMiB),
        baseline: {
          name: 'the same in its first half',
          unit: 'MiB',
          spread: across(runs, (run) => run.firstHalfPeak.totalMiB - run.idle.totalMiB),
        },
        ratioLabel: '× (first half ÷ second half)',
      });
      section.figures.push({
        name: `${phase}, ${label}: peak of the page's JavaScript heap above idle`,
        unit: 'MiB',
        spread: across(runs, (run) => over(run, 'heapMiB')),
        baseline: { name: 'the data', unit: 'MiB', spread: spreadOf(dataMiB) },
        ratioLabel: '× (data ÷ peak)',
      });
    }
  }
  const large = results[results.length - 1]!;
  const sizeRatio = large.seed.contentBytes / small.seed.contentBytes;
  for (const phase of ['export', 'import'] as const) {
    const median = (result: SizeFigures, measure: (run: PhaseFigures) => number) =>
      across(runsOf(result, phase), measure).median;
    const peakOf = (result: SizeFigures) => median(result, (run) => over(run, 'totalMiB'));
    const memoryRatio = peakOf(large) / Math.max(peakOf(small), 1);
    // Bounded: twenty times the data does not double the peak. Between sizes closer together
    // the fixed working set (batches, the heap's slack) decides, so no target is set there.
    const isJudged = sizeRatio >= MIN_SIZE_RATIO_JUDGED;
    section.values.push({
      name: `${phase}: peak memory above idle at ${Math.round(mib(large.seed.contentBytes))} MB ÷ at ${Math.round(mib(small.seed.contentBytes))} MB (data ${sizeRatio.toFixed(1)}× larger; medians of ${runsOf(large, phase).length} and ${runsOf(small, phase).length} runs)`,
      value: Number(memoryRatio.toFixed(2)),
      unit: '×',
      ...(isJudged
        ? {
            target: `≤ ${MAX_BOUNDED_MEMORY_RATIO} (bounded)`,
            isTargetMet: memoryRatio <= MAX_BOUNDED_MEMORY_RATIO,
          }
        : {}),
    });
    const perByte = (result: SizeFigures) =>
      median(result, (run) => run.ms) / result.seed.contentBytes;
    section.values.push({
      name: `${phase}: time per MB at ${Math.round(mib(large.seed.contentBytes))} MB ÷ at ${Math.round(mib(small.seed.contentBytes))} MB`,
      value: Number((perByte(large) / perByte(small)).toFixed(2)),
      unit: '×',
    });
  }
  for (const result of results) {
    const label = `${Math.round(mib(result.seed.contentBytes))} MB`;
    section.values.push(
      {
        name: `${label}: export, then import into an empty database, then export again: the two files are equal (SHA-256) and every table has as many rows`,
        value: result.isRoundTripEqual && result.countsEqual ? 'equal' : 'DIFFERENT',
        unit: '',
        target: 'equal',
        isTargetMet: result.isRoundTripEqual && result.countsEqual,
      },
      {
        name: `${label}: export took (median of ${result.exports.length})`,
        value: Number((across(result.exports, (run) => run.ms).median / 1000).toFixed(1)),
        unit: 's',
      },
      {
        name: `${label}: import took (median of ${result.imports.length})`,
        value: Number((across(result.imports, (run) => run.ms).median / 1000).toFixed(1)),
        unit: 's',
      },
      { name: `${label}: backup file`, value: Math.round(mib(result.fileBytes)), unit: 'MiB' },
      {
        name: `${label}: database on disk (storage estimate after seeding)`,
        value: Math.round(mib(result.seed.usageBytes)),
        unit: 'MiB',
      },
      {
        name: `${label}: peak of all browser processes, export / import (absolute, PSS, medians)`,
        value: `${Math.round(across(result.exports, (run) => run.peak.totalMiB).median)} / ${Math.round(across(result.imports, (run) => run.peak.totalMiB).median)}`,
        unit: 'MiB',
      },
    );
  }
  const rows = (result: SizeFigures) =>
    `${result.seed.sessions.toLocaleString('en-US')} chats with ${result.seed.messages.toLocaleString('en-US')} messages, ${result.seed.projects} projects with ${result.seed.files.toLocaleString('en-US')} files and ${result.seed.chunks.toLocaleString('en-US')} chunks`;
  section.notes.push(
    `Data: ${results.map((result) => `${Math.round(mib(result.seed.contentBytes))} MB = ${rows(result)}`).join('; ')}. About half the bytes are chats (40 messages each, questions of 10–80 words, answers of 80–500), half project files of about 120 KB of Markdown each, stored as the file's bytes and its extracted text, cut into chunks of 1,800 characters with 270 of overlap, each with a 384-float embedding. "MB of data" counts the text (UTF-8), the file bytes and the embeddings' bytes.`,
    "Where it runs: Chromium (the app runs backups in the page), a persistent profile so IndexedDB is on disk as in the app (an incognito-like context would keep the whole database in memory), through the app's backup code (src/storage/backup/). Export is timed from the call to the Blob it returns and ends, for memory, once the browser has saved the download; import reads the saved file through a file input, as the app does, into an empty database.",
    'Before the export wrote its file to the origin private file system as it went (src/storage/backup/export-file.ts), it folded the text into Blobs that Chromium kept in its blob storage, in memory up to a fifth of the RAM: in a run of 2026-11-25 the processes other than the renderer grew by the size of the file (+254 MiB for 200 MB of data, +52 MiB for 50 MB); measured the same way after the change, +13 MiB at 200 MB.',
    'Import writes in batches of at most 500 rows, each batch its own transaction, under an undo journal that leaves the database as it was if the import stops part-way (src/storage/backup/import-journal.ts). Since 2026-11-26 15:00 the rows a batch creates share one journal record per table and the commit deletes the journal as one key range (deleting 200,000 records one by one took 80 s in Chromium, as a range 7 s): the 1 GB import went from 1,615 s (run of 04:43, load 10–47) to 868 s (run of 14:50, load 8–24), and its peak above idle from 526 to 464 MiB. It still rises through the import: the renderer went from 148 MiB at idle to 355 in the first half and 580 in the second, its JavaScript heap to 117 MiB, while the other processes stayed near their export peak (335 MiB). In one all-or-nothing transaction, earlier, the peak at 1 GB was 725 MiB above idle.',
  );
  section.notes.push(
    "Where the import's memory goes, measured later on 2026-11-26 with test/bench/backup-memory-breakdown.ts (PSS every 2 s, Chromium's memory-infra account per process and allocator every 50 s; load average 25–35 on 2 cores): at 200 MB of data (108,820 rows, import 438 s) all processes peaked 225 MiB above idle, the renderer 90 → 256 MiB (first half of the import 216, second 256); at 500 MB (272,542 rows, 1,148 s) 231 MiB above idle, the renderer 88 → 237 MiB (first half 224, second 237). Data 2.5× larger, the same peak. Through the whole 500 MB import the page's JavaScript heap stayed at 54–75 MiB committed (5–34 MiB in use); memory-infra puts the renderer's rise in V8's heap (about 70 MiB committed), partition_alloc (13–22 MiB) and blink_gc (11–14 MiB), each flat from batch to batch, and IndexedDB's LevelDB in the browser process at 10–16 MiB. Up to 500 MB the import is bounded by its batch sizes. The rise of the 1 GB run above is not reproduced at 500 MB; a 1 GB run with the breakdown (about an hour at this load) has not been made, so whether something holds memory only past 500 MB, or that run's figure came from its load (garbage collection falling behind a loaded core), is still open.",
    "What grew, found on 2026-11-26 at 17:00 with test/bench/backup-memory-breakdown.ts --live, which forces a garbage collection before each sample, so it shows what the import keeps alive rather than garbage not collected yet: through a 200 MB import (108,820 rows) the page's JavaScript heap in use stayed at 5–15 MiB and the renderer within 56–76 MiB of idle, the same in both halves, apart from one batch of files (below); heap snapshots summed by constructor every 30 samples showed no kind of object accumulating (IDBRequest, Object and Array counts flat from one snapshot to the next). So the live memory does not grow with the file: what the bench's peak adds on top is garbage that V8 and Blink collect late (the heap in use peaked at 97–100 MiB at 200 MB without forced collections, 38–50 MiB at 50 MB, because the longer run reaches a larger heap before a full collection), and one size-dependent batch: files were batched by 32 million characters of base64 with their text not counted, so at 200 MB of data one batch held about 200 of the 208 files (about 60 MB of strings, held again as bytes, Blobs and IndexedDB's copies while written), at 50 MB at most 52. With forced collections, the page's live heap rose to 40 MiB while that batch was written (renderer 244 MiB), against at most 15 MiB (renderer 207 MiB) with the smaller batches below, the rest of the import being the same. Since 17:00 a batch holds about 4 million characters of file content (bytes as base64 plus text), about 14 of these files: in the runs of 16:47 (before) and 16:53 (after), on the same machine at load 5–10, the 200 MB import's peak above idle went from 330 to 217 MiB (renderer 491 → 383 MiB, heap 100 → 53 MiB), and its ratio to the 50 MB peak from 2.28 to 1.15. The measure is noisy: the export, unchanged, went from 231 to 142 MiB between the same two runs, and the 50 MB import from 145 to 188.",
    'Memory: every 200 ms, the proportional set size (PSS) of every Chromium process (browser, renderer, utility) from /proc, and the page\'s JavaScript heap in use (DevTools Runtime.getHeapUsage); "idle" is the same measure after a garbage collection just before the phase. A peak that did not grow with the data means memory is bounded by the code\'s batch sizes, not by the database.',
  );
}

async function main(): Promise<void> {
  const section = createSection(
    isLarge ? 'backup-1gb' : 'backup',
    isLarge ? '9b. Backups of 1 GB: export and import' : '9. Backups: export and import',
  );
  const outDir = await bundleBenchPage('backup', 'test/bench/pages/backup.page.ts');
  const server = await startStaticServer({ '/pages/': outDir }, BENCH_STATIC_PORT);
  const profile = await mkdtemp(join(tmpdir(), 'carrel-bench-backup-'));
  const context = await launchPersistentChromium(profile);
  try {
    const results: SizeFigures[] = [];
    for (const targetMb of SIZES_MB) results.push(await measureSize(context, targetMb));
    report(section, results);
  } finally {
    await context.close();
    await new Promise<void>((done) => server.close(() => done()));
    await rm(profile, { recursive: true, force: true });
  }
  await emitSection(section);
}

await main();
