import type { Table } from 'dexie';
import type { z } from 'zod';
import type { CarrelDb } from './db';
import { guardStorage } from './guard';
import { parseStored } from './parse-row';

/** The list/get/put/delete shape shared by providers, agents and projects. */
export interface EntityStore<T, Id extends string> {
  list(): Promise<T[]>;
  get(id: Id): Promise<T | undefined>;
  put(entity: T): Promise<void>;
  delete(id: Id): Promise<void>;
}

export function createEntityStore<
  S extends z.ZodType<{ id: string; createdAt: number }>,
  Id extends string,
>(
  db: CarrelDb,
  table: Table<z.output<S>, string>,
  schema: S,
  label: string,
): EntityStore<z.output<S>, Id> {
  const parseRow = (row: unknown, id: string) => parseStored(schema, row, `Stored ${label} ${id}`);
  return {
    list: () =>
      guardStorage(db, async () => {
        const rows = await table.toArray();
        return rows
          .map((row) => parseRow(row, row.id))
          .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
      }),
    get: (id) =>
      guardStorage(db, async () => {
        const row = await table.get(id);
        return row === undefined ? undefined : parseRow(row, id);
      }),
    put: (entity) =>
      guardStorage(db, async () => {
        await table.put(parseStored(schema, entity, `${label} ${entity.id}`));
      }),
    delete: (id) =>
      guardStorage(db, async () => {
        await table.delete(id);
      }),
  };
}
