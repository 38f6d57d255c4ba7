// Types for test-counts.mjs, so the TypeScript tests can import it checked.
export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}
export const SKIPPED_EXIT_CODE: number;
export function vitestCounts(report: unknown): Counts;
export function playwrightCounts(report: unknown): Counts;
export function playwrightListedCount(report: unknown): number;
export function slowPlaywrightTests(report: unknown): string[];
export function vitestFailures(report: unknown, root?: string): string[];
export function playwrightFailures(report: unknown): string[];
