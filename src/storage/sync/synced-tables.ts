/**
 * Which tables sync and which of their fields travel. Fields that only make sense on one
 * device stay behind: a session's cache `version`, a message's place in its line (`lineId`,
 * `depth`, recomputed where it arrives), a file's bytes (they travel as an encrypted attachment
 * of the file's document instead, fetched on demand), and chunks' embeddings: a chunk's text
 * syncs (search works at once), its vector is recomputed on each device by the project's
 * embedding run, since vectors are large, depend on the model each device chose, and follow
 * from the text.
 *
 * Tables left out on purpose: `searchBlocks` and `searchSnapshots` are indexes derived from the
 * chunks (each device rebuilds them when a file's chunks change, synced or not);
 * `messagePacks` are copies of messages each device makes as it loads chats, dropped by any write
 * to a message they copy, synced or not; `imports` and `importUndo` are this
 * device's journal of a backup import under way (what the import writes syncs as ordinary
 * changes once it commits, and an undo is recorded as the changes that put rows back);
 * `syncRecords`, `syncState` and `syncHistory` are sync's own bookkeeping.
 */

/**
 * Every synced table, in the order a push sends them: what a session points at arrives before
 * the session. Adding a table to sync is one line here (and its row schema in incoming-row.ts).
 */
export const SYNCED_TABLES = [
  'projects',
  'agents',
  'providers',
  'settings',
  'prompts',
  'files',
  // A file's extracted text and page map: what the file means to search and to the model.
  'fileTexts',
  'chunks',
  'messages',
  'summaries',
  'usage',
  'sessions',
] as const;
export type SyncedTable = (typeof SYNCED_TABLES)[number];

export const SYNC_RECORDS_TABLE = 'syncRecords';
export const SYNC_STATE_TABLE = 'syncState';
export const SYNC_HISTORY_TABLE = 'syncHistory';

const syncedTableNames: ReadonlySet<string> = new Set(SYNCED_TABLES);

export function isSyncedTable(name: string): name is SyncedTable {
  return syncedTableNames.has(name);
}

export function syncRecordKey(table: SyncedTable, id: string): string {
  return `${table}/${id}`;
}

const LOCAL_FIELDS: Partial<Record<SyncedTable, readonly string[]>> = {
  sessions: ['version'],
  messages: ['lineId', 'depth'],
  files: ['blob', 'isBlobRemote'],
  chunks: ['embedding', 'embeddingModel'],
};

/** Fields that carry credentials: sent only when the person turned key sync on, and encrypted. */
export const SECRET_FIELDS: Partial<Record<SyncedTable, readonly string[]>> = {
  providers: ['apiKey', 'keyOrigin', 'headers'],
};

/** The part of a row that syncs, with undefined fields left out. */
export function toSyncedBody(table: SyncedTable, row: unknown): Record<string, unknown> {
  const local = LOCAL_FIELDS[table] ?? [];
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(row as Record<string, unknown>)) {
    if (value !== undefined && !local.includes(field)) body[field] = value;
  }
  return body;
}

/** The body without its credentials (and their stamps) when key sync is off. */
export function withoutSecrets(
  table: SyncedTable,
  body: Record<string, unknown>,
  stamps: Record<string, string>,
): { body: Record<string, unknown>; stamps: Record<string, string> } {
  const secret = SECRET_FIELDS[table];
  if (secret === undefined) return { body, stamps };
  const keep = <T>(entries: Record<string, T>) =>
    Object.fromEntries(Object.entries(entries).filter(([field]) => !secret.includes(field)));
  return { body: keep(body), stamps: keep(stamps) };
}
