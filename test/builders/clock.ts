import type { Clock } from '../../src/core/ports';

/** Saturday 21 November 2026, 11:00 in Paris: the frozen time of every context test. */
export const FROZEN_NOW_ISO = '2026-11-21T10:00:00Z';
export const FROZEN_TIME_ZONE = 'Europe/Paris';

export function buildFrozenClock(
  iso: string = FROZEN_NOW_ISO,
  timeZone: string = FROZEN_TIME_ZONE,
): Clock {
  const now = Date.parse(iso);
  return { now: () => now, timeZone: () => timeZone };
}
