/**
 * Fast mode runs in `npm test`; `SOAK=1` (npm run soak) switches every suite to the long counts
 * whose figures test/RELIABILITY.md reports.
 */
export const IS_SOAK = process.env.SOAK === '1';

/** The number of runs for a suite: `fast` in npm test, `soak` under SOAK=1. */
export function pickRunCount(fast: number, soak: number): number {
  return IS_SOAK ? soak : fast;
}

/** Vitest timeout for a suite that scales with its run count. */
export function pickTimeoutMs(fastMs: number, soakMs: number): number {
  return IS_SOAK ? soakMs : fastMs;
}
