// Types for bench-results.mjs, so the TypeScript tests can import it checked.
export interface BenchFailure {
  why: string;
  date: string;
  seconds: number;
}
export interface BenchSection {
  id: string;
  title: string;
  figures: unknown[];
  values: unknown[];
  notes: string[];
  seconds?: number;
  date?: string;
  failure?: BenchFailure;
}
export function mergeSections(
  order: readonly string[],
  measured: ReadonlyArray<BenchSection | { id: string; failure: BenchFailure }>,
  previous: readonly BenchSection[],
  previousDate: string | undefined,
): BenchSection[];
export function describeFailure(section: BenchSection): string | null;
