/**
 * Repeated-run timing shared by the Node benches and the browser bench pages: no DOM or Node
 * APIs beyond `performance.now()`, which both have.
 */

export interface Spread {
  runs: number;
  median: number;
  p5: number;
  p95: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of an ascending list (q in [0, 1]). */
export function selectPercentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

export function summarizeSamples(samples: readonly number[]): Spread {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 === 1
      ? (sorted[middle] as number)
      : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return {
    runs: sorted.length,
    median,
    p5: selectPercentile(sorted, 0.05),
    p95: selectPercentile(sorted, 0.95),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export interface TimingOptions {
  /** Untimed calls first, so the JIT and caches settle. */
  warmups?: number;
  minRuns?: number;
  maxRuns?: number;
  /** Stops adding runs once this much time went into timed runs (after minRuns). */
  budgetMs?: number;
}

/** Times `task` repeatedly (ms per call) within a run-count and time budget. */
export async function timeRepeatedly(
  task: () => unknown,
  options: TimingOptions = {},
): Promise<Spread> {
  const { warmups = 2, minRuns = 5, maxRuns = 50, budgetMs = 3_000 } = options;
  for (let index = 0; index < warmups; index++) await task();
  const samples: number[] = [];
  let spent = 0;
  while (samples.length < maxRuns && (samples.length < minRuns || spent < budgetMs)) {
    const start = performance.now();
    await task();
    const elapsed = performance.now() - start;
    samples.push(elapsed);
    spent += elapsed;
  }
  return summarizeSamples(samples);
}

/** A small seeded PRNG (mulberry32): the same synthetic data on every run and machine. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}
