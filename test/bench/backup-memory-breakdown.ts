/**
 * Where the browser's memory goes while a backup is imported: not a figure for RESULTS.md but
 * the probe behind its notes. Seeds a database of the given size, exports it, then imports the
 * file into an empty database as the backup bench does, printing every 2 s the PSS of the
 * browser's processes and the page's JavaScript heap (used and committed), and every 50 s
 * Chromium's own account per process and allocator (memory-infra: v8, blink_gc,
 * partition_alloc, malloc, leveldatabase, …), which says what the growth is made of.
 *
 *     npx tsx test/bench/backup-memory-breakdown.ts 200     # MB of data
 *     npx tsx test/bench/backup-memory-breakdown.ts 200 --live
 *
 * With `--live`, every sample first forces a garbage collection, so the heap and PSS printed
 * are what the import keeps alive rather than garbage not collected yet, and every dump is a
 * heap snapshot summed by constructor (count and MiB of the largest), whose change from the
 * first to the last tells what accumulates.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type CDPSession, type Page } from '@playwright/test';
import {
  BENCH_STATIC_PORT,
  bundleBenchPage,
  launchPersistentChromium,
  startStaticServer,
} from './lib/bench-browser';
import { sampleMemory } from './lib/process-memory';

const MEGABYTE = 1024 * 1024;
const isLive = process.argv.includes('--live');
const SAMPLE_EVERY_MS = isLive ? 1_000 : 2_000;
const DUMP_EVERY_SAMPLES = isLive ? 30 : 25;
/** Allocators below this are left out of the printed account. */
const MIN_PRINTED_MIB = 2;

interface TraceEvent {
  ph: string;
  pid: number;
  args?: {
    dumps?: { allocators?: Record<string, { attrs?: Record<string, { value: string }> }> };
  };
}

async function openPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`[backup] ${error.message}`));
  await page.goto(`http://127.0.0.1:${BENCH_STATIC_PORT}/pages/backup.html`);
  await page.waitForFunction(() => 'benchReady' in globalThis, null, { timeout: 60_000 });
  return page;
}

const call = (page: Page, name: string, ...args: unknown[]): Promise<unknown> =>
  page.evaluate(
    ([fn, params]) =>
      (globalThis as unknown as Record<string, (...p: unknown[]) => unknown>)[fn]!(...params),
    [name, args] as const,
  );

/** MiB per process and top-level allocator, from one detailed memory-infra dump. */
async function dumpAllocators(cdp: CDPSession): Promise<Record<string, number>> {
  // The session emits each protocol event under its method name (typed only as 'event').
  const emitter = cdp as unknown as {
    on(method: string, listener: (params: never) => void): void;
    off(method: string, listener: (params: never) => void): void;
    once(method: string, listener: () => void): void;
  };
  const events: TraceEvent[] = [];
  const onData = (data: { value: TraceEvent[] }) => events.push(...data.value);
  emitter.on('Tracing.dataCollected', onData);
  await cdp.send('Tracing.start', {
    traceConfig: { includedCategories: ['disabled-by-default-memory-infra'] },
    transferMode: 'ReportEvents',
  });
  await cdp.send('Tracing.requestMemoryDump', { deterministic: false, levelOfDetail: 'detailed' });
  const isComplete = new Promise<void>((done) => emitter.once('Tracing.tracingComplete', done));
  await cdp.send('Tracing.end');
  await isComplete;
  emitter.off('Tracing.dataCollected', onData);
  const account: Record<string, number> = {};
  for (const event of events) {
    if (event.ph !== 'v') continue;
    for (const [name, allocator] of Object.entries(event.args?.dumps?.allocators ?? {})) {
      if (name.includes('/')) continue;
      const size = allocator.attrs?.size?.value;
      if (size === undefined) continue;
      const mib = Math.round(parseInt(size, 16) / MEGABYTE);
      if (mib >= MIN_PRINTED_MIB) account[`${event.pid}:${name}`] = mib;
    }
  }
  return account;
}

/** Constructors printed per heap snapshot. */
const SNAPSHOT_TOP = 25;

/** A heap snapshot of the page summed by node type and constructor: count and bytes. */
async function summarizeHeap(cdp: CDPSession): Promise<Record<string, [number, number]>> {
  const emitter = cdp as unknown as {
    on(method: string, listener: (params: never) => void): void;
    off(method: string, listener: (params: never) => void): void;
  };
  const chunks: string[] = [];
  const onChunk = (data: { chunk: string }) => chunks.push(data.chunk);
  emitter.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  emitter.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
  const snapshot = JSON.parse(chunks.join('')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const totals = new Map<string, [number, number]>();
  for (let index = 0; index < snapshot.nodes.length; index += fields.length) {
    const type = types[snapshot.nodes[index + typeAt!]!]!;
    const name = type === 'object' || type === 'native' ? snapshot.strings[snapshot.nodes[index + nameAt!]!]! : '';
    const key = `${type}:${name}`;
    const total = totals.get(key) ?? [0, 0];
    total[0] += 1;
    total[1] += snapshot.nodes[index + sizeAt!]!;
    totals.set(key, total);
  }
  return Object.fromEntries(
    [...totals]
      .sort((a, b) => b[1][1] - a[1][1])
      .slice(0, SNAPSHOT_TOP)
      .map(([key, [count, bytes]]) => [key, [count, Math.round((bytes / MEGABYTE) * 10) / 10]]),
  );
}

async function sample(cdp: CDPSession): Promise<Record<string, number>> {
  if (isLive) await cdp.send('HeapProfiler.collectGarbage');
  const memory = await sampleMemory(cdp);
  const { totalSize } = (await cdp.send('Runtime.getHeapUsage')) as { totalSize: number };
  const round = (value: number) => Math.round(value);
  return {
    totalMiB: round(memory.totalMiB),
    rendererMiB: round(memory.rendererMiB),
    otherMiB: round(memory.otherMiB),
    heapUsedMiB: round(memory.heapMiB),
    heapCommittedMiB: round(totalSize / MEGABYTE),
  };
}

async function main(): Promise<void> {
  const sizeMb = Number(process.argv[2] ?? 50);
  const outDir = await bundleBenchPage('backup', 'test/bench/pages/backup.page.ts');
  const server = await startStaticServer({ '/pages/': outDir }, BENCH_STATIC_PORT);
  const profile = await mkdtemp(join(tmpdir(), 'carrel-backup-breakdown-'));
  const context = await launchPersistentChromium(profile);
  try {
    let page = await openPage(context);
    console.log('seeded', await call(page, 'seedBackupDatabase', 'source', sizeMb * MEGABYTE));
    await page.close();
    page = await openPage(context);
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 0 }),
      call(page, 'exportDatabase', 'source'),
    ]);
    const path = await download.path();
    await call(page, 'releaseExport');
    await page.close();

    page = await openPage(context);
    await page.setInputFiles('#backup-file', path);
    const cdp = await context.newCDPSession(page);
    await cdp.send('HeapProfiler.collectGarbage');
    console.log('idle', JSON.stringify(await sample(cdp)));
    console.log('idle allocators', JSON.stringify(await dumpAllocators(cdp)));
    if (isLive) console.log('idle heap', JSON.stringify(await summarizeHeap(cdp)));
    const started = Date.now();
    let isRunning = true;
    const sampler = (async () => {
      for (let count = 1; isRunning; count++) {
        await new Promise((done) => setTimeout(done, SAMPLE_EVERY_MS));
        const seconds = Math.round((Date.now() - started) / 1000);
        console.log(`${seconds} s`, JSON.stringify(await sample(cdp)));
        if (count % DUMP_EVERY_SAMPLES === 0 && isLive)
          console.log(`${seconds} s heap`, JSON.stringify(await summarizeHeap(cdp)));
        else if (count % DUMP_EVERY_SAMPLES === 0)
          console.log(`${seconds} s allocators`, JSON.stringify(await dumpAllocators(cdp)));
      }
    })();
    const imported = await call(page, 'importDatabase', 'restored');
    isRunning = false;
    await sampler;
    console.log('imported', JSON.stringify(imported), JSON.stringify(await sample(cdp)));
    console.log('end allocators', JSON.stringify(await dumpAllocators(cdp)));
    await cdp.detach();
    await call(page, 'deleteBenchDatabase', 'source');
    await call(page, 'deleteBenchDatabase', 'restored');
    await page.close();
    await download.delete();
  } finally {
    await context.close();
    await new Promise<void>((done) => server.close(() => done()));
    await rm(profile, { recursive: true, force: true });
  }
}

await main();
