import {
  asMessageId,
  asSessionId,
  type ChatMessageSimple,
  type Session,
} from '../../../src/core/model';
// As in the app's entry points: zod runs jitless under the strict CSP, so parse costs match.
import '../../../src/boot/strict-csp';
import { createStores, openCarrelDb, type CarrelDb } from '../../../src/storage';
import type { ChunkRow, FileRow, MessageRow } from '../../../src/storage/db';
import { fromFileRow, putFiles } from '../../../src/storage/file.store';
import { placeRows } from '../../../src/storage/message-lines';
import { invalidateSearchBlocks } from '../../../src/storage/search-block-revisions';
import { toMessageRow } from '../../../src/storage/message-rows';
import { buildChatMessages } from '../lib/chat-messages';
import { createRandom } from '../lib/stats';
import { createProse } from '../lib/synthetic-text';

/**
 * Bench 9 in Chromium's real IndexedDB (a persistent profile, so the database is on disk as in
 * the app): seeds a database of a given size with chats and project files whose text is chunked
 * and embedded (384 floats per chunk), then exports it with the app's backup code, imports the
 * file into a second database and exports that again. The Node side samples memory meanwhile.
 */

/** The exported files carry this time, so two exports of equal data are equal byte for byte. */
const EXPORTED_AT = Date.parse('2026-11-25T12:00:00Z');
const START = Date.parse('2026-01-01T09:00:00Z');
const EMBEDDING_DIMENSIONS = 384;
const MESSAGES_PER_CHAT = 40;
/** A project file of about this many characters of text (a long Markdown note or a report). */
const FILE_CHARS = 120_000;
/** Characters per chunk (about 450 tokens) and the overlap a chunk repeats from the previous. */
const CHUNK_CHARS = 1_800;
const CHUNK_OVERLAP_CHARS = 270;
const FILES_PER_PROJECT = 25;
/** Bytes written per seeding transaction. */
const SEED_BATCH_BYTES = 2_000_000;

const clock = { now: () => EXPORTED_AT, timeZone: () => 'UTC' };
let nextId = 0;
const ids = { newId: () => `bench-${nextId++}` };

const open = (name: string) => openCarrelDb(name);

export interface SeedFigures {
  /** Bytes of content stored: UTF-8 text, file bytes and embedding floats. */
  contentBytes: number;
  sessions: number;
  messages: number;
  projects: number;
  files: number;
  chunks: number;
  seedMs: number;
  /** What the origin uses on disk afterwards (navigator.storage.estimate). */
  usageBytes: number;
}

function buildSession(id: string, leaf: string, projectId: string | null, index: number): Session {
  return {
    id: asSessionId(id),
    title: `Chat ${index}`,
    projectId: projectId === null ? null : (projectId as Session['projectId']),
    agentId: null,
    models: [],
    currentLeafId: asMessageId(leaf),
    isPinned: false,
    isArchived: false,
    createdAt: START + index,
    updatedAt: START + index,
    version: 1,
  };
}

/** Questions of 10–80 words, answers of 80–500: about 2 KB a message on average. */
function buildChat(sessionId: string, random: () => number): ChatMessageSimple[] {
  return buildChatMessages(
    sessionId,
    MESSAGES_PER_CHAT,
    START,
    (index) =>
      createProse(
        random,
        index % 2 === 0 ? 10 + Math.floor(random() * 70) : 80 + Math.floor(random() * 420),
      ),
    (index, tokens) => ({
      model: { providerId: 'openai' as never, modelId: 'gpt-4o-mini' },
      usage: { inputTokens: 1200 + index * 40, outputTokens: tokens },
    }),
  );
}

function buildEmbedding(random: () => number): ArrayBuffer {
  const vector = new Float32Array(EMBEDDING_DIMENSIONS);
  let norm = 0;
  for (let index = 0; index < vector.length; index++) {
    vector[index] = random() * 2 - 1;
    norm += vector[index]! * vector[index]!;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let index = 0; index < vector.length; index++) vector[index]! *= scale;
  return vector.buffer;
}

/** A project file, its extracted text, and its chunks with their vectors. */
function buildFile(
  fileId: string,
  projectId: string,
  index: number,
  random: () => number,
): { file: FileRow; chunks: ChunkRow[]; bytes: number } {
  const paragraphs: string[] = [];
  let length = 0;
  while (length < FILE_CHARS) {
    const paragraph = createProse(random, 60 + Math.floor(random() * 120));
    paragraphs.push(paragraph);
    length += paragraph.length + 2;
  }
  const text = paragraphs.join('\n\n');
  const chunks: ChunkRow[] = [];
  for (let start = 0, ordinal = 0; start < text.length; ordinal++) {
    const end = Math.min(text.length, start + CHUNK_CHARS);
    const chunkText = text.slice(start, end);
    chunks.push({
      id: `${fileId}-c${ordinal}`,
      fileId,
      projectId,
      ordinal,
      text: chunkText,
      tokenCount: Math.ceil(chunkText.length / 4),
      embedding: buildEmbedding(random),
      embeddingModel: 'Xenova/all-MiniLM-L6-v2',
    });
    if (end === text.length) break;
    start = end - CHUNK_OVERLAP_CHARS;
  }
  const file: FileRow = {
    id: fileId,
    projectId,
    name: `notes-${index}.md`,
    mimeType: 'text/markdown',
    sizeBytes: text.length,
    hash: `sha256-${fileId}`,
    blob: new Blob([text], { type: 'text/markdown' }),
    status: 'ready',
    text,
    tokenCount: Math.ceil(text.length / 4),
    createdAt: START + index,
    updatedAt: START + index,
  };
  const bytes =
    text.length * 2 +
    chunks.reduce((sum, chunk) => sum + chunk.text.length + EMBEDDING_DIMENSIONS * 4, 0);
  return { file, chunks, bytes };
}

/** About half the bytes in chats, half in project files with their chunks. */
async function seed(name: string, targetBytes: number): Promise<SeedFigures> {
  const started = performance.now();
  await deleteDatabase(name);
  const db = await open(name);
  const random = createRandom(targetBytes);
  const figures = { contentBytes: 0, sessions: 0, messages: 0, projects: 0, files: 0, chunks: 0 };
  let chatBytes = 0;
  let fileBytes = 0;
  while (figures.contentBytes < targetBytes) {
    // One transaction of about SEED_BATCH_BYTES, of whichever half is behind.
    if (chatBytes <= fileBytes) {
      const sessions: Session[] = [];
      const rows: MessageRow[] = [];
      let batchBytes = 0;
      while (batchBytes < SEED_BATCH_BYTES) {
        const index = figures.sessions++;
        const sessionId = `chat-${index}`;
        const messages = buildChat(sessionId, random);
        const projectId =
          index % 4 === 0 && figures.projects > 0 ? `project-${index % figures.projects}` : null;
        sessions.push(buildSession(sessionId, messages.at(-1)!.id, projectId, index));
        rows.push(...placeRows([], messages.map(toMessageRow)));
        for (const message of messages)
          batchBytes +=
            message.role === 'user'
              ? message.text.length
              : message.steps.reduce((sum, step) => sum + step.text.length, 0);
      }
      await db.transaction('rw', [db.sessions, db.messages], async () => {
        await db.sessions.bulkPut(sessions);
        await db.messages.bulkPut(rows);
      });
      figures.messages += rows.length;
      chatBytes += batchBytes;
      figures.contentBytes += batchBytes;
    } else {
      const files: FileRow[] = [];
      const chunks: ChunkRow[] = [];
      let batchBytes = 0;
      while (batchBytes < SEED_BATCH_BYTES) {
        const index = figures.files++;
        if (index % FILES_PER_PROJECT === 0) {
          const projectIndex = figures.projects++;
          await db.projects.put({
            id: `project-${projectIndex}` as never,
            name: `Project ${projectIndex}`,
            instructions: createProse(random, 40),
            defaultModel: null,
            defaultAgentId: null,
            createdAt: START + projectIndex,
            updatedAt: START + projectIndex,
          });
        }
        const built = buildFile(`file-${index}`, `project-${figures.projects - 1}`, index, random);
        files.push(built.file);
        chunks.push(...built.chunks);
        batchBytes += built.bytes;
      }
      // As the app writes them: each file's text in its own row, and the search block row (and
      // the project's snapshot) its chunks' writer moves on, so the backup carries the texts and
      // the counts compare.
      const written = [db.files, db.fileTexts, db.chunks, db.searchBlocks, db.searchSnapshots];
      await db.transaction('rw', written, async () => {
        await putFiles(
          db,
          files.map((file) => fromFileRow(file)),
        );
        await db.chunks.bulkPut(chunks);
        await invalidateSearchBlocks(
          db,
          files.map((file) => ({ fileId: file.id, projectId: file.projectId })),
        );
      });
      figures.chunks += chunks.length;
      fileBytes += batchBytes;
      figures.contentBytes += batchBytes;
    }
  }
  db.close();
  const estimate = await navigator.storage.estimate();
  return { ...figures, seedMs: performance.now() - started, usageBytes: estimate.usage ?? 0 };
}

function deleteDatabase(name: string): Promise<void> {
  return new Promise((done, fail) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => done();
    request.onerror = () => fail(request.error ?? new Error(`Could not delete ${name}`));
  });
}

/**
 * The floor for an export: every row of every table read page by page as the export reads it,
 * without converting, checking or encoding anything.
 */
async function readEveryRow(name: string): Promise<{ ms: number; rows: number }> {
  const db = await open(name);
  const started = performance.now();
  let rows = 0;
  await db.transaction('r', db.tables, async () => {
    for (const table of db.tables) {
      let last: unknown;
      for (;;) {
        const page =
          last === undefined
            ? await table.orderBy(':id').limit(500).toArray()
            : await table
                .where(':id')
                .above(last as string)
                .limit(500)
                .toArray();
        rows += page.length;
        if (page.length < 500) break;
        const final = page.at(-1) as Record<string, unknown>;
        last = final[String(table.schema.primKey.keyPath)];
      }
    }
  });
  const ms = performance.now() - started;
  db.close();
  return { ms, rows };
}

let exported: { url: string } | undefined;

/** Exports the database and starts its download (as the app's Export button does). */
async function exportDatabase(name: string): Promise<{ ms: number; bytes: number }> {
  const db = await open(name);
  const stores = createStores(db, clock, ids);
  const started = performance.now();
  const blob = await stores.backup.exportBackup({ kind: 'all' }, {});
  const ms = performance.now() - started;
  db.close();
  const url = URL.createObjectURL(blob);
  exported = { url };
  const link = document.createElement('a');
  link.href = url;
  link.download = `${name}.jsonl`;
  document.body.append(link);
  link.click();
  link.remove();
  return { ms, bytes: blob.size };
}

/** After the download is saved: the page lets go of the file. */
function releaseExport(): void {
  if (exported !== undefined) URL.revokeObjectURL(exported.url);
  exported = undefined;
}

/** Imports the file chosen in the page's file input into a new, empty database. */
async function importDatabase(name: string): Promise<{ ms: number; rows: number }> {
  const input = document.querySelector<HTMLInputElement>('#backup-file');
  const file = input?.files?.[0];
  if (file === undefined) throw new Error('No backup file chosen');
  await deleteDatabase(name);
  const db = await open(name);
  const stores = createStores(db, clock, ids);
  const started = performance.now();
  const report = await stores.backup.importBackup(file, {});
  const ms = performance.now() - started;
  db.close();
  if (input !== null) input.value = '';
  return { ms, rows: report.inserted + report.replaced + report.kept };
}

async function countRows(name: string): Promise<Record<string, number>> {
  const db: CarrelDb = await open(name);
  const counts = Object.fromEntries(
    await Promise.all(db.tables.map(async (table) => [table.name, await table.count()] as const)),
  );
  db.close();
  return counts;
}

const input = document.createElement('input');
input.type = 'file';
input.id = 'backup-file';
document.body.append(input);

Object.assign(globalThis, {
  benchReady: true,
  seedBackupDatabase: seed,
  readEveryRow,
  exportDatabase,
  releaseExport,
  importDatabase,
  countRows,
  deleteBenchDatabase: deleteDatabase,
});
