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
