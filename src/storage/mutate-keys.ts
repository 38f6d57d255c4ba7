import type { DBCoreMutateRequest, DBCoreTable } from 'dexie';

/** The keys a write request names without reading anything (all but a range delete). */
export function namedKeys(table: DBCoreTable, req: DBCoreMutateRequest): unknown[] | undefined {
  if (req.type === 'deleteRange') return undefined;
  if (req.type === 'delete') return req.keys as unknown[];
  const extract = table.schema.primaryKey.extractKey;
  return (
    (req.keys as unknown[] | undefined) ?? req.values.map((value): unknown => extract?.(value))
  );
}
