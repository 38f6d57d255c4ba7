/**
 * A raw, comparable dump of every table a backup holds: blobs and vectors become plain bytes.
 * Sync's own tables (revisions, this device's state) are the device's, not the backup's.
 */
import type { CarrelDb } from '../../../src/storage/db';

const DEVICE_TABLES = new Set(['syncRecords', 'syncState', 'syncHistory']);

export interface DatabaseDump {
  [table: string]: unknown[];
}

/**
 * Search blocks are derived from the chunks and rebuilt from them, so backups leave them out
 * and a round trip is compared without them; `withSearchBlocks` keeps them, for checks that a
 * database is left exactly as it was. Projects' search snapshots are always left out: any write
 * of chunks drops them (an import's undo too), and a search joins them again from the blocks.
 * So are message packs: copies of messages that any write of one of them drops, made again as
 * chats are loaded.
 */
export async function dumpDatabase(
  db: CarrelDb,
  options: { withSearchBlocks?: boolean } = {},
): Promise<DatabaseDump> {
  const dump: DatabaseDump = {};
  for (const table of db.tables.filter((table) => !DEVICE_TABLES.has(table.name))) {
    if (table.name === 'searchBlocks' && options.withSearchBlocks !== true) continue;
    if (table.name === 'searchSnapshots' || table.name === 'messagePacks') continue;
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

const TABLES = [
  'sessions',
  'messages',
  'projects',
  'files',
  'chunks',
  'agents',
  'providers',
  'settings',
  'usage',
  'summaries',
] as const;

/** A version 2 backup file's header and rows, table by table, as plain JSON. */
export type BackupContents = { header: Record<string, unknown> } & Record<
  (typeof TABLES)[number],
  Record<string, unknown>[]
>;

export function parseBackupText(text: string): BackupContents {
  const lines = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const contents: Record<string, unknown> = { header: lines[0] };
  for (const table of TABLES) contents[table] = [];
  for (const line of lines.slice(1, -1)) {
    (contents[line['table'] as string] as unknown[]).push(line['row']);
  }
  return contents as BackupContents;
}

/** The file's text again, rows in table order and a matching end line. */
export function writeBackupText(contents: BackupContents): string {
  const rows = TABLES.flatMap((table) => contents[table].map((row) => ({ table, row })));
  return [contents.header, ...rows, { end: true, rows: rows.length }]
    .map((line) => `${JSON.stringify(line)}\n`)
    .join('');
}
