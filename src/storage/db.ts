/**
 * The whole IndexedDB schema, every version kept, newest last. Dexie replays the upgrade
 * functions in order for a database left by any older Carrel, so a version is never edited
 * once released: a change is a new version with its own tested upgrade.
 */
import { Dexie, type DexieOptions, type Table, type Transaction } from 'dexie';
import type {
  Agent,
  AssistantStep,
  ModelRef,
  Project,
  ProviderConfig,
  Session,
  Usage,
  ChatSummary,
  SavedPrompt,
} from '../core/model';
import { readOrigin } from '../core/model';
import type { FileSearchBlock, PageSpan } from '../core/ports';
import { StorageError, toStorageError } from './errors';
import { placeRows, type TreeLinks } from './message-lines';
import { createMessagePacking, MESSAGE_PACK_SIZE, type MessagePackRow } from './message-packs';
import type { StoredSearchSnapshot } from './search-snapshot-codec';
import { ROOT_PARENT_ID, type MessageRow } from './message-row';
import {
  createChangeTracking,
  type SyncRecordRow,
  type SyncStateRow,
} from './sync/change-tracking';
import { type SyncHistoryRow, recordExistingRows } from './sync/record-existing';

export { ROOT_PARENT_ID, type MessageRow };

export type SessionRow = Session;
export type ProjectRow = Project;
export type AgentRow = Agent;
export type ProviderRow = ProviderConfig;

export interface FileRow {
  id: string;
  /** Null for a chat attachment; such rows are simply absent from the projectId index. */
  projectId: string | null;
  name: string;
  mimeType: string;
  sizeBytes: number;
  hash: string;
  /** Empty while `isBlobRemote`: the bytes are then still only on the sync server. */
  blob: Blob;
  isBlobRemote?: boolean;
  status: 'processing' | 'ready' | 'no_text' | 'error';
  /** Until version 6 only: the text now lives in `fileTexts`, so listing files reads no text. */
  text?: string;
  tokenCount: number;
  error?: string;
  /** Until version 6 only, as `text`. */
  pageMap?: PageSpan[];
  createdAt: number;
  updatedAt: number;
}

/** A file's search block (absent until built, or after its chunks changed) and its revision. */
export interface SearchBlockRow {
  fileId: string;
  projectId: string | null;
  revision: number;
  block: FileSearchBlock | null;
}

/** A file's extracted text and page map, apart from its metadata (from version 6). */
export interface FileTextRow {
  fileId: string;
  projectId: string | null;
  text?: string;
  pageMap?: PageSpan[];
}

export interface ChunkRow {
  id: string;
  fileId: string;
  projectId: string | null;
  ordinal: number;
  text: string;
  tokenCount: number;
  location?: string;
  /** The bytes of a Float32Array: compact, and cloned by IndexedDB without conversion. */
  embedding: ArrayBuffer | null;
  embeddingModel: string | null;
}

export interface SettingRow {
  key: string;
  value: unknown;
  updatedAt: number;
}

export interface UsageRow {
  id: string;
  sessionId: string;
  messageId: string;
  model: ModelRef;
  usage: Usage;
  createdAt: number;
}

/** Version 1: the first schema. Root messages had a null parent, so the index missed them. */
export const SCHEMA_V1 = {
  sessions: 'id, updatedAt, projectId',
  messages: 'id, sessionId, [sessionId+parentId]',
  projects: 'id',
  files: 'id, projectId, hash',
  chunks: 'id, fileId, projectId',
  agents: 'id',
  providers: 'id',
  settings: 'key',
} as const;

/** Version 2: root sentinel, a status index for crash recovery, session versions, usage. */
export const SCHEMA_V2 = {
  ...SCHEMA_V1,
  messages: 'id, sessionId, [sessionId+parentId], status',
  usage: 'id, sessionId, createdAt',
} as const;

/** Version 3: lines, so a chain loads in a few `[lineId+depth]` range reads. */
export const SCHEMA_V3 = {
  ...SCHEMA_V2,
  messages: 'id, sessionId, [sessionId+parentId], status, [lineId+depth]',
} as const;

/** Version 4: a provider's key is bound to the origin it was entered for (`keyOrigin`). */
export const SCHEMA_V4 = SCHEMA_V3;

/** Version 5: summaries of long chats (compaction), listed per session. Nothing to migrate. */
export const SCHEMA_V5 = {
  ...SCHEMA_V4,
  summaries: 'id, sessionId',
} as const;

export type SummaryRow = ChatSummary;

/**
 * Version 6: a file's text and page map move to `fileTexts`, so listing a project's files reads
 * names and sizes, not megabytes of text; chunks are counted per embedding model by index.
 */
export const SCHEMA_V6 = {
  ...SCHEMA_V5,
  chunks: 'id, fileId, projectId, [projectId+embeddingModel]',
  fileTexts: 'fileId, projectId',
} as const;

/**
 * Version 7: each file's share of its project's search index (keyword counts and packed
 * vectors), with a revision that every write of the file's chunks moves on. Starts empty: the
 * blocks are built from the chunks when a project is first searched.
 */
export const SCHEMA_V7 = {
  ...SCHEMA_V6,
  searchBlocks: 'fileId, projectId',
} as const;

/** Files moved per step of the v5 → v6 upgrade: a step holds this many texts in memory. */
const FILES_PER_UPGRADE_STEP = 50;

/**
 * Version 8: the journal of a backup import under way. An import writes in many transactions;
 * `imports` holds one row per import not yet finished (written before its first batch, deleted
 * when it commits) and `importUndo` what each of its writes replaced, so an import that fails,
 * is cancelled or is cut short by a closed tab is undone. Nothing to migrate.
 */
export const SCHEMA_V8 = {
  ...SCHEMA_V7,
  imports: 'id',
  importUndo: '++seq, importId',
} as const;

/** A backup import that has not committed: it is writing, or being undone. */
export interface ImportRow {
  id: string;
  startedAt: number;
}

/** What one write of an import replaced: the row as it was, or null where there was none. */
export interface ImportUndoRow {
  seq?: number;
  importId: string;
  table: string;
  key: string;
  before: unknown;
  /**
   * Rows one batch created (none held their key before): undone by deleting them. One record
   * stands for the whole batch (`key` is then empty and `before` null), so importing into an
   * empty database writes a few records, not one per row.
   */
  createdKeys?: string[];
}

/** Version 9: the prompt library. A new table, nothing to migrate. */
export const SCHEMA_V9 = {
  ...SCHEMA_V8,
  prompts: 'id',
} as const;

export type PromptRow = SavedPrompt;

/**
 * Version 10: sync. Each synced row's record (revision, stamps, tombstone, pending flag), this
 * device's sync state (device id, clock, checkpoints, settings, keys) and the versions that lost
 * a merge. The upgrade records every existing row of a synced table as a pending change.
 */
export const SCHEMA_V10 = {
  ...SCHEMA_V9,
  syncRecords: 'key, pending, docId',
  syncState: 'key',
  syncHistory: 'id, recordKey',
} as const;

export type { SyncRecordRow, SyncStateRow, SyncHistoryRow };

/**
 * Version 11: each project's whole search index joined from its files' blocks, stored in one
 * row with a generation that every write of the project's chunks moves on. Starts empty: a
 * project's snapshot is stored after its next search joins the blocks.
 */
export const SCHEMA_V11 = {
  ...SCHEMA_V10,
  // The generation is indexed so that it reads without the snapshot's tens of MB.
  searchSnapshots: 'projectId, [projectId+generation]',
} as const;

export interface SearchSnapshotRow {
  projectId: string;
  generation: number;
  /** Null once chunks of the project changed, until a search joins the blocks again. */
  snapshot: StoredSearchSnapshot | null;
}

/**
 * Version 12: files indexed by project and name, so a project's file ids and names are read
 * from the index's keys without a row (each row holds its file's Blob, a cost per row read).
 */
export const SCHEMA_V12 = {
  ...SCHEMA_V11,
  files: 'id, projectId, hash, [projectId+name]',
} as const;

/**
 * Version 13: packs, copies of a line's settled messages many to a row, so a long chain loads in
 * a few reads (`message-packs.ts`). Starts empty: packs are made as chains are loaded.
 */
export const SCHEMA_V13 = {
  ...SCHEMA_V12,
  messagePacks: '[lineId+start]',
} as const;

export type { MessagePackRow };

export const CURRENT_SCHEMA_VERSION = 13;

function sumTokens(values: readonly unknown[]): number {
  return values.reduce<number>(
    (total, value) => total + (typeof value === 'number' ? value : 0),
    0,
  );
}

/**
 * v1 → v2. Rows it cannot interpret abort the whole upgrade: IndexedDB then rolls the
 * database back to v1 untouched, which is better than silently dropping someone's messages.
 */
export async function upgradeToV2(tx: Transaction): Promise<void> {
  await tx
    .table('sessions')
    .toCollection()
    .modify((row: Record<string, unknown>) => {
      if (typeof row.version !== 'number') row.version = 0;
    });
  await tx
    .table('messages')
    .toCollection()
    .modify((row: Record<string, unknown>) => {
      if (typeof row.id !== 'string' || typeof row.sessionId !== 'string') {
        throw new StorageError(
          'invalid_data',
          `A stored message has no id or session (${String(row.id)}); the upgrade was cancelled and nothing was changed.`,
        );
      }
      if (row.role !== 'user' && row.role !== 'assistant') {
        throw new StorageError(
          'invalid_data',
          `Message ${row.id} has an unknown role; the upgrade was cancelled and nothing was changed.`,
        );
      }
      if (row.parentId === null || row.parentId === undefined) row.parentId = ROOT_PARENT_ID;
      if (row.role === 'user') {
        row.status = 'complete';
        const attachments = Array.isArray(row.attachments)
          ? (row.attachments as { tokenCount?: unknown }[])
          : [];
        row.tokenCount = sumTokens([row.textTokenCount, ...attachments.map((a) => a.tokenCount)]);
      } else {
        const steps = Array.isArray(row.steps) ? (row.steps as Partial<AssistantStep>[]) : [];
        row.text = steps
          .map((step) => step.text ?? '')
          .filter((text) => text.length > 0)
          .join('\n\n');
        row.tokenCount = sumTokens(
          steps.flatMap((step) => [
            step.textTokenCount,
            step.reasoning?.tokenCount,
            ...(step.toolCalls ?? []).flatMap((call) => [
              call.argumentsTokenCount,
              call.result?.tokenCount,
            ]),
          ]),
        );
      }
    });
}

/**
 * v2 → v3: places every message in a line, one session at a time (so memory holds one session,
 * not the database), and drops the assistant rows' copy of their answer text. A row whose
 * links it cannot read cancels the upgrade, leaving the database at v2 untouched.
 */
export async function upgradeToV3(tx: Transaction): Promise<void> {
  const messages = tx.table<Record<string, unknown>, string>('messages');
  const sessionIds = await messages.orderBy('sessionId').uniqueKeys();
  for (const sessionId of sessionIds) {
    const rows = await messages.where('sessionId').equals(sessionId).toArray();
    const links = rows.map((row): Record<string, unknown> & TreeLinks => {
      if (
        typeof row.id !== 'string' ||
        typeof row.parentId !== 'string' ||
        typeof row.createdAt !== 'number'
      ) {
        throw new StorageError(
          'invalid_data',
          `Message ${String(row.id)} has no readable parent or creation time; the upgrade was cancelled and nothing was changed.`,
        );
      }
      if (row.role === 'assistant') delete row.text;
      return { ...row, id: row.id, parentId: row.parentId, createdAt: row.createdAt };
    });
    await messages.bulkPut(placeRows([], links));
  }
}

/**
 * v3 → v4: each stored key is bound to the origin of the base URL it is used with today, the
 * only address it can have been meant for. A row whose base URL does not parse gets no origin,
 * so its key is never sent until the person enters it again.
 */
export async function upgradeToV4(tx: Transaction): Promise<void> {
  await tx
    .table('providers')
    .toCollection()
    .modify((row: Record<string, unknown>) => {
      if (typeof row.apiKey !== 'string' || row.apiKey === '' || typeof row.keyOrigin === 'string')
        return;
      const origin = typeof row.baseUrl === 'string' ? readOrigin(row.baseUrl) : undefined;
      if (origin !== undefined) row.keyOrigin = origin;
    });
}

/**
 * v5 → v6: moves each file's text and page map into `fileTexts`, a few files at a time so memory
 * holds a few texts, not every project's. The chunks' new index fills itself.
 */
export async function upgradeToV6(tx: Transaction): Promise<void> {
  const files = tx.table<FileRow, string>('files');
  const texts = tx.table<FileTextRow, string>('fileTexts');
  const ids = await files.toCollection().primaryKeys();
  for (let at = 0; at < ids.length; at += FILES_PER_UPGRADE_STEP) {
    const rows = (await files.bulkGet(ids.slice(at, at + FILES_PER_UPGRADE_STEP))).filter(
      (row) => row !== undefined,
    );
    await texts.bulkPut(rows.map(toFileTextRow));
    await files.bulkPut(rows.map(withoutText));
  }
}

function toFileTextRow(row: FileRow): FileTextRow {
  return {
    fileId: row.id,
    projectId: row.projectId,
    ...(row.text === undefined ? {} : { text: row.text }),
    ...(row.pageMap === undefined ? {} : { pageMap: row.pageMap }),
  };
}

function withoutText(row: FileRow): FileRow {
  const { text: _text, pageMap: _pageMap, ...rest } = row;
  return rest;
}

export class CarrelDb extends Dexie {
  declare readonly sessions: Table<SessionRow, string>;
  declare readonly messages: Table<MessageRow, string>;
  declare readonly projects: Table<ProjectRow, string>;
  declare readonly files: Table<FileRow, string>;
  declare readonly chunks: Table<ChunkRow, string>;
  declare readonly agents: Table<AgentRow, string>;
  declare readonly providers: Table<ProviderRow, string>;
  declare readonly settings: Table<SettingRow, string>;
  declare readonly usage: Table<UsageRow, string>;
  declare readonly summaries: Table<SummaryRow, string>;
  declare readonly syncRecords: Table<SyncRecordRow, string>;
  declare readonly syncState: Table<SyncStateRow, string>;
  declare readonly syncHistory: Table<SyncHistoryRow, string>;
  declare readonly fileTexts: Table<FileTextRow, string>;
  declare readonly searchBlocks: Table<SearchBlockRow, string>;
  declare readonly searchSnapshots: Table<SearchSnapshotRow, string>;
  declare readonly imports: Table<ImportRow, string>;
  declare readonly importUndo: Table<ImportUndoRow, number>;
  declare readonly prompts: Table<PromptRow, string>;
  declare readonly messagePacks: Table<MessagePackRow, [string, number]>;

  /** The clock that stamps sync records (a test's frozen clock, or the real one). */
  readonly syncClock: () => number;
  /** Messages per pack: tests make it small, so a few messages fill one. */
  readonly messagePackSize: number;

  constructor(
    name: string,
    options: DexieOptions = {},
    now: () => number = () => Date.now(),
    messagePackSize = MESSAGE_PACK_SIZE,
  ) {
    // Strict durability: a message is on disk when the transaction resolves, not just in the
    // OS cache, so a crash right after "saved" cannot lose it. Migrations get it too.
    super(name, { chromeTransactionDurability: 'strict', ...options });
    this.version(1).stores(SCHEMA_V1);
    this.version(2).stores(SCHEMA_V2).upgrade(upgradeToV2);
    this.version(3).stores(SCHEMA_V3).upgrade(upgradeToV3);
    this.version(4).stores(SCHEMA_V4).upgrade(upgradeToV4);
    this.version(5).stores(SCHEMA_V5);
    this.version(6).stores(SCHEMA_V6).upgrade(upgradeToV6);
    this.version(7).stores(SCHEMA_V7);
    this.version(8).stores(SCHEMA_V8);
    this.version(9).stores(SCHEMA_V9);
    this.version(10)
      .stores(SCHEMA_V10)
      .upgrade((tx) => recordExistingRows(tx, now()));
    this.version(11).stores(SCHEMA_V11);
    this.version(12).stores(SCHEMA_V12);
    this.version(13).stores(SCHEMA_V13);
    this.syncClock = now;
    this.messagePackSize = messagePackSize;
    this.use(createChangeTracking(now));
    this.use(createMessagePacking(this));
  }
}

export interface OpenCarrelDbOptions {
  /** For tests and workers: `{ indexedDB, IDBKeyRange }` from fake-indexeddb, etc. */
  dexie?: DexieOptions;
  /** Another tab opened a newer schema; this connection is already closed. Prompt a reload. */
  onVersionChange?: () => void;
  /** This tab's upgrade waits for an older tab to close. */
  onBlocked?: () => void;
  /** The time sync stamps local changes with (tests freeze it); the real time otherwise. */
  now?: () => number;
  /** Messages per pack (`message-packs.ts`); tests make it small. */
  messagePackSize?: number;
}

export async function openCarrelDb(
  name = 'carrel',
  options: OpenCarrelDbOptions = {},
): Promise<CarrelDb> {
  const db = new CarrelDb(name, options.dexie, options.now, options.messagePackSize);
  db.on('versionchange', () => {
    // Close first so the other tab's upgrade is not blocked by us while the prompt is shown.
    db.close();
    options.onVersionChange?.();
    return false;
  });
  db.on('blocked', () => {
    options.onBlocked?.();
  });
  try {
    await db.open();
  } catch (error) {
    db.close();
    throw toStorageError(error);
  }
  return db;
}
