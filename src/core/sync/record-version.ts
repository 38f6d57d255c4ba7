/**
 * A synced record's version: the fields that travel, the stamp of each field's last change, and
 * the revisions it descends from. Two versions that neither descends from merge field by field
 * (the newer stamp wins; see `mergeVersions`), so the result does not depend on the order in
 * which devices see each other's edits.
 */
import { z } from 'zod';

/** The revisions a version remembers having replaced; older ones are forgotten. */
export const MAX_ANCESTORS = 64;

/** The pseudo-field whose stamp says when the record was last deleted or (re)created. */
export const DELETED_FIELD = '_deleted';

/**
 * `<16-digit time>@<device>`: compares as a string in time order, ties broken by device. The time
 * is a hybrid clock (never behind a stamp the device has already seen), so an edit made after
 * seeing another one wins even when the device's clock is behind.
 */
export function formatStamp(time: number, device: string): string {
  return `${Math.max(0, Math.floor(time)).toString().padStart(16, '0')}@${device}`;
}

export function readStampTime(stamp: string): number {
  const time = Number(stamp.slice(0, 16));
  return Number.isFinite(time) ? time : 0;
}

export const recordVersionSchema = z.object({
  rev: z.string().regex(/^\d+-[0-9a-f]{32}$/, 'Expected a revision such as 3-0f…'),
  ancestors: z.array(z.string()).max(MAX_ANCESTORS),
  isDeleted: z.boolean(),
  /** The synced fields; empty for a deletion. */
  body: z.record(z.string(), z.unknown()),
  stamps: z.record(z.string(), z.string()),
  device: z.string().min(1),
  changedAt: z.number(),
});
export type RecordVersion = z.infer<typeof recordVersionSchema>;

/** The generation of a revision: the number before the dash. */
export function revisionGeneration(rev: string): number {
  const generation = Number.parseInt(rev.slice(0, rev.indexOf('-')), 10);
  return Number.isFinite(generation) ? generation : 0;
}

/** The part after the dash, as CouchDB's `_revisions.ids` lists it. */
export function revisionHash(rev: string): string {
  return rev.slice(rev.indexOf('-') + 1);
}

/** JSON with object keys sorted, so equal values always give the same text. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, field]) => field !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
}

/**
 * The stamps after a local change from `before` to `after` (undefined: the row does not exist),
 * or null when no synced field changed. A deletion stamps only the deletion; a (re)creation
 * stamps every field the record ever had, present or not, so no older value of a field it left
 * out can come back through a merge.
 */
export function stampLocalChange(
  stamps: Readonly<Record<string, string>>,
  before: Readonly<Record<string, unknown>> | undefined,
  after: Readonly<Record<string, unknown>> | undefined,
  stamp: string,
  wasDeleted: boolean,
): Record<string, string> | null {
  const next: Record<string, string> = { ...stamps };
  if (after === undefined) {
    if (before === undefined || wasDeleted) return null;
    next[DELETED_FIELD] = stamp;
    return next;
  }
  if (before === undefined || wasDeleted) {
    for (const field of new Set([...Object.keys(stamps), ...Object.keys(after)]))
      next[field] = stamp;
    next[DELETED_FIELD] = stamp;
    return next;
  }
  let isChanged = false;
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (!isSameFieldValue(before[field], after[field])) {
      next[field] = stamp;
      isChanged = true;
    }
  }
  return isChanged ? next : null;
}

/** Whether a field kept its value, as JSON sees it; most fields are compared without JSON. */
function isSameFieldValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // Two different texts (or flags) differ as JSON too; anything else (null against a missing
  // field, NaN, objects) is compared as JSON.
  if (typeof a === typeof b && (typeof a === 'string' || typeof a === 'boolean')) return false;
  return canonicalJson(a) === canonicalJson(b);
}

/** Which of two stamped values wins: the later stamp, then (same stamp) the larger value text. */
function isSecondNewer(stampA: string, valueA: unknown, stampB: string, valueB: unknown): boolean {
  if (stampA !== stampB) return stampB > stampA;
  return canonicalJson(valueB) > canonicalJson(valueA);
}

export interface MergedContent {
  isDeleted: boolean;
  body: Record<string, unknown>;
  stamps: Record<string, string>;
  device: string;
  changedAt: number;
}

/**
 * Merges two concurrent versions field by field: each field takes the value with the newer
 * stamp, the deletion flag too. Commutative, associative and idempotent, so any number of
 * devices merging in any order end with the same content.
 */
export function mergeVersions(
  a: Omit<RecordVersion, 'rev' | 'ancestors'>,
  b: Omit<RecordVersion, 'rev' | 'ancestors'>,
): MergedContent {
  const body: Record<string, unknown> = {};
  const stamps: Record<string, string> = {};
  const fields = new Set([
    ...Object.keys(a.stamps),
    ...Object.keys(b.stamps),
    ...Object.keys(a.body),
    ...Object.keys(b.body),
  ]);
  let isDeleted = false;
  for (const field of [...fields].sort()) {
    const stampA = a.stamps[field] ?? '';
    const stampB = b.stamps[field] ?? '';
    const valueA = field === DELETED_FIELD ? a.isDeleted : a.body[field];
    const valueB = field === DELETED_FIELD ? b.isDeleted : b.body[field];
    const isB = isSecondNewer(stampA, valueA, stampB, valueB);
    const stamp = isB ? stampB : stampA;
    const value = isB ? valueB : valueA;
    if (stamp !== '') stamps[field] = stamp;
    if (field === DELETED_FIELD) isDeleted = value === true;
    else if (value !== undefined) body[field] = value;
  }
  // A field one side never stamped counts as older than any stamp of the other side.
  const newest = Object.values(stamps).reduce((max, stamp) => (stamp > max ? stamp : max), '');
  const newestSide = newest === '' ? a : Object.values(b.stamps).includes(newest) ? b : a;
  return {
    isDeleted,
    body: isDeleted ? {} : body,
    stamps,
    device: newestSide.device,
    changedAt: Math.max(a.changedAt, b.changedAt),
  };
}

/** Whether a version's content equals the merged content (then it lost nothing). */
export function isSameContent(
  version: Pick<RecordVersion, 'isDeleted' | 'body'>,
  content: Pick<MergedContent, 'isDeleted' | 'body'>,
): boolean {
  return (
    version.isDeleted === content.isDeleted &&
    canonicalJson(version.body) === canonicalJson(content.body)
  );
}

/** Ancestors of a merge of `a` and `b`: both, and what each remembers, newest first. */
export function mergeAncestors(a: RecordVersion, b: RecordVersion): string[] {
  const all = [a.rev, b.rev, ...a.ancestors, ...b.ancestors];
  return [...new Set(all)].slice(0, MAX_ANCESTORS);
}

export type IncomingVerdict = 'known' | 'fast_forward' | 'concurrent';

/** How an incoming version relates to the local one. */
export function compareVersions(
  local: Pick<RecordVersion, 'rev' | 'ancestors'>,
  incoming: Pick<RecordVersion, 'rev' | 'ancestors'>,
): IncomingVerdict {
  if (incoming.rev === local.rev || local.ancestors.includes(incoming.rev)) return 'known';
  if (incoming.ancestors.includes(local.rev)) return 'fast_forward';
  return 'concurrent';
}
