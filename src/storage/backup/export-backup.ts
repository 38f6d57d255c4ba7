/**
 * Exporting a backup as JSON Lines, one row at a time inside one read transaction (a consistent
 * snapshot). Text is folded into a Blob every few megabytes and each fold is written to the
 * export file (on disk where the browser has a private file system, see export-file.ts), so
 * memory holds one row and about one fold's worth of text, whatever the database's size.
 */
import { Dexie, type IndexableType, type Table } from 'dexie';
import {
  agentSchema,
  chatSummarySchema,
  collectSecrets,
  projectSchema,
  promptSchema,
  providerConfigSchema,
  redactSecretsDeep,
  sessionSchema,
  type ProviderConfig,
} from '../../core/model';
import { checkSettingValue, isSettingKey } from '../../core/model/settings';
import type { BackupProgress, BackupScope, Clock, StoredFile, TextChunk } from '../../core/ports';
import { fromChunkRow } from '../chunk.store';
import type { CarrelDb, MessageRow, SettingRow } from '../db';
import { StorageError } from '../errors';
import { fromFileRow, joinFileTexts } from '../file.store';
import { guardStorage } from '../guard';
import { fromMessageRow } from '../message-rows';
import { parseStored } from '../parse-row';
import { usageRecordSchema } from '../usage.store';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  type BackupChunk,
  type BackupFile,
  type BackupHeader,
  type BackupRecord,
  type BackupTable,
} from './backup-format';
import { encodeBase64 } from './base64';
import { openExportFile, type ExportFileSink } from './export-file';
import { createProgressReporter } from './progress';

export interface ExportOptions {
  /** API keys are blanked unless the user explicitly asks to include them. */
  includeApiKeys?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: BackupProgress) => void;
}

export const BACKUP_MIME_TYPE = 'application/x-ndjson';
/** Characters of text kept as strings before they are folded into a Blob (about 8 MB). */
const FOLD_CHARS = 4_000_000;

/**
 * A file built from parts: strings until a fold, then a Blob handed to the sink. `appendLine`
 * is synchronous (rows are emitted inside the read transaction); the folds wait in `pending`
 * until `drain` writes them, which the export awaits between pages.
 */
function createBackupWriter(sink: ExportFileSink) {
  let strings: string[] = [];
  let pendingChars = 0;
  const pending: Blob[] = [];
  const fold = () => {
    if (strings.length === 0) return;
    pending.push(new Blob(strings));
    strings = [];
    pendingChars = 0;
  };
  const drain = async () => {
    for (let part = pending.shift(); part !== undefined; part = pending.shift())
      await sink.append(part);
  };
  return {
    appendLine(value: unknown): void {
      const line = `${JSON.stringify(value)}\n`;
      strings.push(line);
      pendingChars += line.length;
      if (pendingChars >= FOLD_CHARS) fold();
    },
    hasPending: () => pending.length > 0,
    drain,
    async finish(type: string): Promise<Blob> {
      fold();
      await drain();
      return sink.finish(type);
    },
  };
}

async function encodeFile(file: StoredFile): Promise<BackupFile> {
  const { blob, ...metadata } = file;
  // Reading a blob is not an IndexedDB request: waitFor keeps the snapshot's transaction open.
  const bytes = new Uint8Array(await Dexie.waitFor(blob.arrayBuffer()));
  return { ...metadata, blobType: blob.type, blobBase64: encodeBase64(bytes) };
}

function encodeChunk(chunk: TextChunk): BackupChunk {
  const { embedding, ...metadata } = chunk;
  return {
    ...metadata,
    embeddingBase64:
      embedding === null
        ? null
        : encodeBase64(
            new Uint8Array(embedding.buffer, embedding.byteOffset, embedding.byteLength),
          ),
  };
}

/** Parents before children, so an import can place each message under a parent it has seen. */
const byDepthThenId = (a: MessageRow, b: MessageRow) =>
  (a.depth ?? 0) - (b.depth ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A stored setting the import would accept: a registered key whose value passes its schema. */
const isExportable = (row: SettingRow) =>
  isSettingKey(row.key) && checkSettingValue(row.key, row.value).success;

type Emit = (record: BackupRecord) => void;
/** Lets the file catch up with the rows emitted so far (between pages, inside the snapshot). */
type Settle = () => Promise<void>;

/** Tables whose text may hold a key (a pasted or echoed one): redacted in a file without keys. */
const REDACTED_TABLES = new Set<BackupTable>([
  'sessions',
  'messages',
  'agents',
  'settings',
  'summaries',
  'prompts',
]);

/** A stored summary as the file holds it: checked with the schema the summary store writes. */
const summaryRecord = (row: unknown): BackupRecord => ({
  table: 'summaries',
  row: parseStored(chatSummarySchema, row, 'Stored summary'),
});

/** A provider as a file without keys holds it: no key, and no record of where it was bound. */
function withoutKey(provider: ProviderConfig): ProviderConfig {
  const { keyOrigin: _origin, ...rest } = provider;
  return { ...rest, apiKey: '' };
}

/** One table's part of the file: how many rows it has and how to visit them in file order. */
interface TableSource {
  count: number;
  write(emit: Emit, settle: Settle): Promise<void>;
}

interface SourceOptions {
  includeApiKeys: boolean;
}

/** Rows read per request: few round trips, and one page in memory at a time. */
const PAGE_ROWS = 500;

/** Visits a table in primary-key order, one page (a single getAll) at a time. */
async function eachPage<Row, Key extends IndexableType>(
  table: Table<Row, Key>,
  keyOf: (row: Row) => Key,
  visit: (row: Row) => void,
  settle: Settle,
): Promise<void> {
  let last: Key | undefined;
  for (;;) {
    const page =
      last === undefined
        ? await table.orderBy(':id').limit(PAGE_ROWS).toArray()
        : await table.where(':id').above(last).limit(PAGE_ROWS).toArray();
    page.forEach(visit);
    await settle();
    const final = page[page.length - 1];
    if (final === undefined || page.length < PAGE_ROWS) return;
    last = keyOf(final);
  }
}

const byId = (row: { id: string }) => row.id;

/** Every row of the database, a page at a time (a whole chat at a time for messages). */
async function planWholeDatabase(db: CarrelDb, options: SourceOptions): Promise<TableSource[]> {
  const count = async (table: { count(): Promise<number> }) => table.count();
  const fileIds = await db.files.toCollection().primaryKeys();
  return [
    {
      count: await count(db.sessions),
      write: (emit, settle) =>
        eachPage(
          db.sessions,
          byId,
          (row) =>
            emit({
              table: 'sessions',
              row: parseStored(sessionSchema, row, `Stored session ${row.id}`),
            }),
          settle,
        ),
    },
    {
      count: await count(db.messages),
      write: async (emit, settle) => {
        // One chat at a time, parents first; the index also finds messages whose chat is gone.
        const sessionIds = await db.messages.orderBy('sessionId').uniqueKeys();
        for (const sessionId of sessionIds) {
          const rows = await db.messages.where('sessionId').equals(sessionId).toArray();
          for (const row of rows.sort(byDepthThenId))
            emit({ table: 'messages', row: fromMessageRow(row) });
          await settle();
        }
      },
    },
    {
      count: await count(db.projects),
      write: (emit, settle) =>
        eachPage(
          db.projects,
          byId,
          (row) =>
            emit({
              table: 'projects',
              row: parseStored(projectSchema, row, `Stored project ${row.id}`),
            }),
          settle,
        ),
    },
    {
      count: fileIds.length,
      write: async (emit, settle) => {
        for (const id of fileIds) {
          const row = await db.files.get(id);
          if (row !== undefined)
            emit({ table: 'files', row: await encodeFile(fromFileRow(row, await db.fileTexts.get(id))) });
          await settle();
        }
      },
    },
    {
      count: await count(db.chunks),
      write: (emit, settle) =>
        eachPage(
          db.chunks,
          byId,
          (row) => emit({ table: 'chunks', row: encodeChunk(fromChunkRow(row)) }),
          settle,
        ),
    },
    ...planConfiguration(db, options, {
      agents: await count(db.agents),
      providers: await count(db.providers),
      settings: await count(db.settings),
      prompts: await count(db.prompts),
    }),
    {
      count: await count(db.usage),
      write: (emit, settle) =>
        eachPage(
          db.usage,
          byId,
          (row) =>
            emit({
              table: 'usage',
              row: parseStored(usageRecordSchema, row, 'Stored usage record'),
            }),
          settle,
        ),
    },
    {
      count: await count(db.summaries),
      write: (emit, settle) =>
        eachPage(db.summaries, byId, (row) => emit(summaryRecord(row)), settle),
    },
  ];
}

/**
 * Agents, providers (keys blanked unless asked), settings and saved prompts: only a whole
 * backup has them.
 */
function planConfiguration(
  db: CarrelDb,
  options: SourceOptions,
  counts: { agents: number; providers: number; settings: number; prompts: number },
): TableSource[] {
  return [
    {
      count: counts.agents,
      write: (emit, settle) =>
        eachPage(
          db.agents,
          byId,
          (row) =>
            emit({ table: 'agents', row: parseStored(agentSchema, row, `Stored agent ${row.id}`) }),
          settle,
        ),
    },
    {
      count: counts.providers,
      write: (emit, settle) =>
        eachPage(
          db.providers,
          byId,
          (row) => {
            const provider = parseStored(providerConfigSchema, row, `Stored provider ${row.id}`);
            emit({
              table: 'providers',
              row: options.includeApiKeys ? provider : withoutKey(provider),
            });
          },
          settle,
        ),
    },
    {
      count: counts.settings,
      // A value no schema accepts reads as absent here; leaving it out keeps the file importable.
      write: (emit, settle) =>
        eachPage(
          db.settings,
          (row) => row.key,
          (row) => {
            if (isExportable(row)) emit({ table: 'settings', row });
          },
          settle,
        ),
    },
    {
      count: counts.prompts,
      write: (emit, settle) =>
        eachPage(
          db.prompts,
          byId,
          (row) =>
            emit({
              table: 'prompts',
              row: parseStored(promptSchema, row, `Stored prompt ${row.id}`),
            }),
          settle,
        ),
    },
  ];
}

/** A project or one chat: the rows are found by index first; their number is what the scope holds. */
async function planScoped(
  db: CarrelDb,
  scope: Exclude<BackupScope, { kind: 'all' }>,
): Promise<TableSource[]> {
  let sessions;
  let messages: MessageRow[];
  let files: StoredFile[];
  let projects: unknown[] = [];
  if (scope.kind === 'project') {
    const project = await db.projects.get(scope.projectId);
    if (project === undefined)
      throw new StorageError('not_found', `Project ${scope.projectId} no longer exists.`);
    projects = [project];
    sessions = await db.sessions.where('projectId').equals(scope.projectId).toArray();
    messages = await db.messages
      .where('sessionId')
      .anyOf(sessions.map((session) => session.id))
      .toArray();
    files = await joinFileTexts(db, await db.files.where('projectId').equals(scope.projectId).toArray());
  } else {
    const session = await db.sessions.get(scope.sessionId);
    if (session === undefined)
      throw new StorageError('not_found', `Session ${scope.sessionId} no longer exists.`);
    sessions = [session];
    messages = await db.messages.where('sessionId').equals(scope.sessionId).toArray();
    // Attachments keep their text inline; their files come along so the blobs are not lost.
    const fileIds = [
      ...new Set(messages.flatMap((message) => (message.attachments ?? []).map((a) => a.fileId))),
    ];
    files = await joinFileTexts(
      db,
      (await db.files.bulkGet(fileIds)).filter((file) => file !== undefined),
    );
  }
  const sessionIds = sessions.map((session) => session.id);
  const chunks = await db.chunks
    .where('fileId')
    .anyOf(files.map((file) => file.id))
    .toArray();
  const usage = await db.usage.where('sessionId').anyOf(sessionIds).toArray();
  const summaries = await db.summaries.where('sessionId').anyOf(sessionIds).toArray();
  const fromRows = <Row>(
    rows: Row[],
    toRecord: (row: Row) => BackupRecord | Promise<BackupRecord>,
  ) => ({
    count: rows.length,
    write: async (emit: Emit, settle: Settle) => {
      for (const row of rows) {
        emit(await toRecord(row));
        await settle();
      }
    },
  });
  messages.sort((a, b) =>
    a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : byDepthThenId(a, b),
  );
  return [
    fromRows(sessions, (row) => ({
      table: 'sessions',
      row: parseStored(sessionSchema, row, `Stored session ${row.id}`),
    })),
    fromRows(messages, (row) => ({ table: 'messages', row: fromMessageRow(row) })),
    fromRows(projects, (row) => ({
      table: 'projects',
      row: parseStored(projectSchema, row, 'Stored project'),
    })),
    fromRows(files, async (file) => ({ table: 'files', row: await encodeFile(file) })),
    fromRows(chunks, (row) => ({ table: 'chunks', row: encodeChunk(fromChunkRow(row)) })),
    fromRows(usage, (row) => ({
      table: 'usage',
      row: parseStored(usageRecordSchema, row, 'Stored usage record'),
    })),
    fromRows(summaries, summaryRecord),
  ];
}

/** The backup file (JSON Lines) of what the scope covers, built row by row. */
export async function exportBackup(
  db: CarrelDb,
  scope: BackupScope,
  clock: Clock,
  options: ExportOptions = {},
): Promise<Blob> {
  const includeApiKeys = options.includeApiKeys ?? false;
  const exportedAt = clock.now();
  const sink = await openExportFile(`carrel-backup-${exportedAt}.jsonl`);
  const out = createBackupWriter(sink);
  // Reaching the file is not an IndexedDB request: waitFor keeps the snapshot open meanwhile.
  const settle: Settle = async () => {
    if (out.hasPending()) await Dexie.waitFor(out.drain());
  };
  try {
    return await writeBackup();
  } catch (error) {
    await sink.discard();
    // A cancel is not a storage failure: the caller sees the signal's reason, as with fetch.
    if (options.signal?.aborted === true) throw options.signal.reason;
    throw error;
  }

  function writeBackup(): Promise<Blob> {
    return guardStorage(db, () =>
      db.transaction('r', db.tables, async () => {
        const sources =
          scope.kind === 'all'
            ? await planWholeDatabase(db, { includeApiKeys })
            : await planScoped(db, scope);
        const progress = createProgressReporter(
          sources.reduce((total, source) => total + source.count, 0),
          options.onProgress,
        );
        const header: BackupHeader = {
          format: BACKUP_FORMAT,
          version: BACKUP_VERSION,
          exportedAt,
          scope,
          hasApiKeys: includeApiKeys,
        };
        out.appendLine(header);
        // Every key on this device, whatever the scope: none may appear in a file without
        // keys (an error a provider echoed, key included, is kept in its message).
        const secrets = includeApiKeys
          ? []
          : collectSecrets((await db.providers.toArray()).map((row) => row.apiKey));
        let rows = 0;
        const emit: Emit = (record) => {
          options.signal?.throwIfAborted();
          out.appendLine(
            REDACTED_TABLES.has(record.table) ? redactSecretsDeep(record, secrets) : record,
          );
          rows += 1;
          progress.advance(1);
        };
        for (const source of sources) {
          options.signal?.throwIfAborted();
          await source.write(emit, settle);
        }
        out.appendLine({ end: true, rows });
        const file = await Dexie.waitFor(out.finish(BACKUP_MIME_TYPE));
        progress.finish();
        // A cancel while the last rows were written and the file closed still wins: the file
        // is dropped, not handed out to be saved.
        options.signal?.throwIfAborted();
        return file;
      }),
    );
  }
}
