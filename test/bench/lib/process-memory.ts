import { readdirSync, readFileSync } from 'node:fs';
import type { CDPSession } from '@playwright/test';

/**
 * Memory of a browser run by this bench, sampled from /proc (Linux): every process descended
 * from this one (Chromium's browser, renderers, utility processes), each counted by its
 * proportional set size (PSS: shared pages split between the processes that map them, so the
 * sum is not inflated), and the page's JavaScript heap through the DevTools protocol.
 */

export interface MemorySample {
  /** All of the browser's processes, MiB. */
  totalMiB: number;
  /** Renderer processes (where the page and its JavaScript run), MiB. */
  rendererMiB: number;
  /** The browser process and its utility processes (IndexedDB, blob storage, network), MiB. */
  otherMiB: number;
  /** The page's JavaScript heap in use, MiB. */
  heapMiB: number;
}

const KIB_PER_MIB = 1024;

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // The process ended between listing and reading.
    return undefined;
  }
}

/** Process ids descended from `root` (not `root` itself). */
export function listDescendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProc(`/proc/${entry}/stat`);
    if (stat === undefined) continue;
    // "pid (comm) state ppid …": comm may hold spaces or parentheses, so read after the last ')'.
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(parent) ?? [];
    list.push(Number(entry));
    children.set(parent, list);
  }
  const found: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    found.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** PSS of one process in KiB (RSS where smaps_rollup is not readable), 0 once it has ended. */
function readPssKiB(pid: number): number {
  const rollup = readProc(`/proc/${pid}/smaps_rollup`);
  const pss = rollup === undefined ? undefined : /^Pss:\s+(\d+) kB/m.exec(rollup)?.[1];
  if (pss !== undefined) return Number(pss);
  const status = readProc(`/proc/${pid}/status`);
  return Number((status === undefined ? undefined : /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]) ?? 0);
}

const isRenderer = (pid: number) =>
  (readProc(`/proc/${pid}/cmdline`) ?? '').includes('--type=renderer');

export async function sampleMemory(cdp: CDPSession | undefined): Promise<MemorySample> {
  let renderer = 0;
  let other = 0;
  for (const pid of listDescendants(process.pid)) {
    const kib = readPssKiB(pid);
    if (isRenderer(pid)) renderer += kib;
    else other += kib;
  }
  let heapMiB = 0;
  if (cdp !== undefined) {
    const usage = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
    heapMiB = usage.usedSize / 1024 / 1024;
  }
  return {
    totalMiB: (renderer + other) / KIB_PER_MIB,
    rendererMiB: renderer / KIB_PER_MIB,
    otherMiB: other / KIB_PER_MIB,
    heapMiB,
  };
}

const KEYS = ['totalMiB', 'rendererMiB', 'otherMiB', 'heapMiB'] as const;

/** The highest value of each measure over the samples (each may peak at a different time). */
export function peakOf(samples: readonly MemorySample[]): MemorySample {
  const peak: MemorySample = { totalMiB: 0, rendererMiB: 0, otherMiB: 0, heapMiB: 0 };
  for (const sample of samples)
    for (const key of KEYS) peak[key] = Math.max(peak[key], sample[key]);
  return peak;
}

/**
 * Runs `work` while sampling memory every `intervalMs`; returns its result, the memory just
 * before it (after a garbage collection), the peak while it ran, and the peaks of its first and
 * second halves (memory that keeps growing with the work peaks later; bounded memory does not).
 */
export async function withMemorySampling<T>(
  cdp: CDPSession,
  work: () => Promise<T>,
  intervalMs = 200,
): Promise<{
  result: T;
  idle: MemorySample;
  peak: MemorySample;
  firstHalfPeak: MemorySample;
  secondHalfPeak: MemorySample;
}> {
  await cdp.send('HeapProfiler.collectGarbage');
  await new Promise((done) => setTimeout(done, 500));
  const idle = await sampleMemory(cdp);
  const samples: { at: number; sample: MemorySample }[] = [];
  const started = performance.now();
  let isRunning = true;
  const sampler = (async () => {
    while (isRunning) {
      // A page busy in a long task answers the heap query late; PSS is read meanwhile anyway.
      const sample = await sampleMemory(cdp);
      samples.push({ at: performance.now() - started, sample });
      await new Promise((done) => setTimeout(done, intervalMs));
    }
  })();
  try {
    const result = await work();
    const duration = performance.now() - started;
    isRunning = false;
    await sampler;
    const half = (isFirst: boolean) =>
      peakOf(samples.filter(({ at }) => at < duration / 2 === isFirst).map(({ sample }) => sample));
    return {
      result,
      idle,
      peak: peakOf([idle, ...samples.map(({ sample }) => sample)]),
      firstHalfPeak: half(true),
      secondHalfPeak: half(false),
    };
  } finally {
    isRunning = false;
    await sampler;
  }
}
