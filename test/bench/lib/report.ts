import type { Spread } from './stats';

/**
 * The shape every bench hands to `scripts/bench.mjs`, which merges them into results.json and
 * the RESULTS.md table. A figure sits next to the baseline or limit measured in the same run.
 */

export interface Comparison {
  name: string;
  unit: string;
  spread: Spread;
}

export interface Figure {
  name: string;
  unit: string;
  spread: Spread;
  /** Baseline or physical limit from the same run; `ratio` = baseline median / figure median. */
  baseline?: Comparison;
  /** How the ratio reads, e.g. "× faster" or "× of native". */
  ratioLabel?: string;
  /** Human-readable target, e.g. "< 5 ms"; `isTargetMet` says whether the median meets it. */
  target?: string;
  isTargetMet?: boolean;
}

export interface BenchSection {
  id: string;
  title: string;
  figures: Figure[];
  /** Single values that are not timings (sizes, counts, recall), with their unit. */
  values: Array<{
    name: string;
    value: number | string;
    unit: string;
    target?: string;
    isTargetMet?: boolean;
  }>;
  notes: string[];
}

export function createSection(id: string, title: string): BenchSection {
  return { id, title, figures: [], values: [], notes: [] };
}

/** A single measurement (one run) as a spread, for figures that are counts or sizes. */
export function spreadOf(value: number): Spread {
  return { runs: 1, median: value, p5: value, p95: value, min: value, max: value };
}

/**
 * Writes the section where the orchestrator expects it ($BENCH_OUT), or prints it when a bench
 * is run by hand.
 */
export async function emitSection(section: BenchSection): Promise<void> {
  const text = JSON.stringify(section, null, 2);
  const target = process.env.BENCH_OUT;
  if (target === undefined || target === '') {
    console.log(text);
    return;
  }
  const { writeFile } = await import('node:fs/promises');
  await writeFile(target, text + '\n');
}
