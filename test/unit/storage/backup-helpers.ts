/** A raw, comparable dump of every table: blobs and vectors become plain bytes. */
import type { CarrelDb } from '../../../src/storage/db';

export interface DatabaseDump {
  [table: string]: unknown[];
}

export async function dumpDatabase(db: CarrelDb): Promise<DatabaseDump> {
  const dump: DatabaseDump = {};
  for (const table of db.tables) {
    const rows: unknown[] = await table.toArray();
    dump[table.name] = await Promise.all(
      rows.map(async (row) => {
        const copy: Record<string, unknown> = { ...(row as Record<string, unknown>) };
        for (const [key, value] of Object.entries(copy)) {
          if (value instanceof Blob)
            copy[key] = {
              type: value.type,
              bytes: Array.from(new Uint8Array(await value.arrayBuffer())),
            };
          if (value instanceof ArrayBuffer) copy[key] = Array.from(new Uint8Array(value));
        }
        return copy;
      }),
    );
  }
  return dump;
}

export async function wipeDatabase(db: CarrelDb): Promise<void> {
  await db.transaction('rw', db.tables, async () => {
    for (const table of db.tables) await table.clear();
  });
}
