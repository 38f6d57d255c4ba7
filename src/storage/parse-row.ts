import type { z } from 'zod';
import { StorageError } from './errors';

/** Joins a zod issue path the way people read it: `sessions.0.title`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.map((segment) => String(segment)).join('.');
}

/** Rows may come from an older version or another tab: validate before they leave storage. */
export function parseStored<S extends z.ZodType>(
  schema: S,
  value: unknown,
  label: string,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue === undefined ? '' : formatIssuePath(issue.path);
  throw new StorageError(
    'invalid_data',
    `${label} is invalid at "${path}": ${issue?.message ?? 'unknown issue'}.`,
  );
}

/** How many problems an import names before "and N more". */
const MAX_NAMED_ISSUES = 3;

/**
 * The first problems of a refused file, each with its path and, where the path starts in a
 * list of records, the record's id: `"messages.3.role" (id m7) Invalid input`.
 */
export function describeIssues(issues: z.ZodError['issues'], root: unknown): string {
  const named = issues.slice(0, MAX_NAMED_ISSUES).map((issue) => {
    const path = formatIssuePath(issue.path);
    const record = readRecordId(root, issue.path);
    return `"${path === '' ? '(top level)' : path}"${record === undefined ? '' : ` (${record})`} ${issue.message}`;
  });
  const more = issues.length - named.length;
  return `${named.join('; ')}${more > 0 ? `; and ${more} more` : ''}.`;
}

/** The id (or key) of the record a path such as `messages.3.role` points into. */
function readRecordId(root: unknown, path: readonly PropertyKey[]): string | undefined {
  const [list, index] = path;
  if (typeof list !== 'string' || typeof index !== 'number') return undefined;
  const records = (root as Record<string, unknown> | null)?.[list];
  const record: unknown =
    typeof records === 'object' && records !== null
      ? (records as Record<number, unknown>)[index]
      : undefined;
  if (typeof record !== 'object' || record === null) return undefined;
  for (const field of ['id', 'key']) {
    const value = (record as Record<string, unknown>)[field];
    if (typeof value === 'string') return `${field} ${value}`;
  }
  return undefined;
}
