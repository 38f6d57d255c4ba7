import { asFileId, asProjectId, type Project } from '../../../src/core/model';
import type { Embedder, StoredFile } from '../../../src/core/ports';
import {
  countTerms,
  createHybridRetriever,
  createRetrieverFromBlocks,
  isSearchBlockUsable,
  restoreRetrieverFromSnapshot,
} from '../../../src/core/rag';
// As in the app's entry points: zod runs jitless under the strict CSP, so parse costs match.
import '../../../src/boot/strict-csp';
import { createStores, openCarrelDb, type CarrelDb } from '../../../src/storage';
import { watchTableWrites } from '../../../src/storage/watch-writes';
import type { ChunkRow } from '../../../src/storage/db';
import { createProjectSearch } from '../../../src/workers/embedding/project-search';
import { createRandom } from '../lib/stats';
import { createZipfProseSource } from '../lib/synthetic-text';

/**
 * Bench 10 in Chromium's real IndexedDB through the app's stores and project search: a project
 * of N chunks with vectors is seeded, searched once (which stores every file's search block, as
 * the first search after an ingest does), then opened cold in fresh pages: page load → the first
 * search answer, next to warm searches in the same page.
 */

export const DIMENSIONS = 384;
const CHUNKS_PER_FILE = 100;
const WORDS_PER_CHUNK = 300;
const SEED_BATCH = 2_000;
export const MODEL_ID = 'bench/random-384';
const PROJECT = asProjectId('bench-project');
const QUERIES = [['quarterly figures of the lisbon office'], ['release notes and migration steps']];
const WARM_SEARCHES = 5;

function buildVector(random: () => number): Float32Array<ArrayBuffer> {
  const vector = new Float32Array(DIMENSIONS);
  for (let i = 0; i < DIMENSIONS; i++) vector[i] = random() - 0.5;
  return vector;
}

/** Query vectors from a seeded generator: what matters here is the index, not the model. */
function createBenchEmbedder(): Embedder {
  const random = createRandom(99);
  return {
    modelId: MODEL_ID,
    embed: (texts) => Promise.resolve(texts.map(() => buildVector(random))),
  };
}

function openBenchDb(name: string) {
  return openCarrelDb(name);
}

/**
 * As the agent worker builds it: the joined index is kept until files or chunks change. The
 * snapshot a join stores is kept in `background` to wait for; with `background` null none is
 * stored (the opens measured from the blocks).
 */
function createSearch(
  db: CarrelDb,
  stores: ReturnType<typeof createStores>,
  background: Array<Promise<unknown>> | null,
) {
  const embedder = createBenchEmbedder();
  return createProjectSearch({
    ...stores,
    loadEmbedder: () => Promise.resolve(embedder),
    watchWrites: (onWrite) => watchTableWrites(db, ['files', 'chunks'], onWrite),
    runInBackground: (work) => {
      background?.push(work());
    },
  });
}

const clock = { now: () => Date.now(), timeZone: () => 'UTC' };
const ids = { newId: () => crypto.randomUUID() };

export interface SeedFigures {
  chunkCount: number;
  textBytes: number;
  seedMs: number;
  /** The first search: every file's block built from its chunks and stored. */
  firstSearchMs: number;
  /** After it, the joined index stored as the project's snapshot. */
  storeSnapshotMs: number;
}

async function seedProject(name: string, chunkCount: number): Promise<SeedFigures> {
  const start = performance.now();
  const db = await openBenchDb(name);
  const stores = createStores(db, clock, ids);
  const project: Project = {
    id: PROJECT,
    name: 'Bench',
    instructions: '',
    defaultModel: null,
    defaultAgentId: null,
    createdAt: 1,
    updatedAt: 1,
  };
  await stores.projects.put(project);
  const random = createRandom(chunkCount);
  const prose = createZipfProseSource(random);
  let textBytes = 0;
  const encoder = new TextEncoder();
  for (let at = 0; at < chunkCount; at += SEED_BATCH) {
    const rows: ChunkRow[] = [];
    const files: StoredFile[] = [];
    for (let index = at; index < Math.min(chunkCount, at + SEED_BATCH); index++) {
      const fileIndex = Math.floor(index / CHUNKS_PER_FILE);
      const fileId = asFileId(`file-${String(fileIndex).padStart(6, '0')}`);
      const ordinal = index % CHUNKS_PER_FILE;
      if (ordinal === 0)
        files.push({
          id: fileId,
          projectId: PROJECT,
          name: `notes-${fileIndex}.md`,
          mimeType: 'text/markdown',
          sizeBytes: 1,
          hash: `hash-${fileIndex}`,
          blob: new Blob(['#']),
          status: 'ready',
          // The file's text is as large as its chunks' text; listing files must not read it.
          text: '',
          tokenCount: 0,
          createdAt: fileIndex,
          updatedAt: fileIndex,
        });
      const text = prose(WORDS_PER_CHUNK);
      textBytes += encoder.encode(text).length;
      rows.push({
        id: `${fileId}:${ordinal}`,
        fileId,
        projectId: PROJECT,
        ordinal,
        text,
        tokenCount: WORDS_PER_CHUNK,
        location: `§${ordinal + 1}`,
        embedding: buildVector(random).buffer,
        embeddingModel: MODEL_ID,
      });
    }
    for (const file of files) await stores.files.put(file);
    await db.chunks.bulkPut(rows);
  }
  const seedMs = performance.now() - start;
  const firstStart = performance.now();
  const background: Array<Promise<unknown>> = [];
  await createSearch(db, stores, background).search(
    PROJECT,
    QUERIES[0] ?? [],
    new AbortController().signal,
  );
  const firstSearchMs = performance.now() - firstStart;
  const storeStart = performance.now();
  const stored = await Promise.all(background);
  const storeSnapshotMs = performance.now() - storeStart;
  db.close();
  if (stored.length !== 1 || stored[0] !== true) throw new Error('the snapshot was not stored');
  return { chunkCount, textBytes, seedMs, firstSearchMs, storeSnapshotMs };
}

export interface ColdFigures {
  /** performance.now() at the first answer: milliseconds since this page's navigation began. */
  answerAtMs: number;
  /** performance.now() as the open began (the page's script loaded and run). */
  openAtMs: number;
  /** From opening the database to the first answer. */
  openToAnswerMs: number;
  warmMs: number[];
  hitCount: number;
  mode: string;
  /** JS heap in use after the first answer (Chromium's performance.memory), bytes. */
  heapBytes: number | null;
}

/** A cold open, from the project's snapshot, or with `fromBlocks` from its files' blocks. */
async function openAndSearch(name: string, fromBlocks: boolean): Promise<ColdFigures> {
  const start = performance.now();
  const db = await openBenchDb(name);
  const stores = createStores(db, clock, ids);
  const search = createSearch(db, stores, fromBlocks ? null : []);
  const signal = new AbortController().signal;
  const first = await search.search(PROJECT, QUERIES[0] ?? [], signal);
  const answerAtMs = performance.now();
  const warmMs: number[] = [];
  for (let run = 0; run < WARM_SEARCHES; run++) {
    const warmStart = performance.now();
    await search.search(PROJECT, QUERIES[run % QUERIES.length] ?? [], signal);
    warmMs.push(performance.now() - warmStart);
  }
  const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
  db.close();
  return {
    answerAtMs,
    openAtMs: start,
    openToAnswerMs: answerAtMs - start,
    warmMs,
    hitCount: first.hits.length,
    mode: `${first.mode}${first.keywordOnlyReason === null ? '' : ` (${first.keywordOnlyReason})`}`,
    heapBytes: memory?.usedJSHeapSize ?? null,
  };
}

/**
 * What a cold open cost before search blocks: every chunk row read, tokenized and indexed
 * (createHybridRetriever over the chunks, as project search did), then the same query.
 */
async function rebuildFromRows(name: string): Promise<number> {
  const start = performance.now();
  const db = await openBenchDb(name);
  const stores = createStores(db, clock, ids);
  const [files, chunks] = await Promise.all([
    stores.files.listInfoByProject(PROJECT),
    stores.chunks.listByProject(PROJECT),
  ]);
  const names = new Map(files.map((file) => [file.id, file.name]));
  const retriever = createHybridRetriever(
    chunks.map((chunk) => ({ ...chunk, title: names.get(chunk.fileId) ?? '' })),
    MODEL_ID,
    { isInt8: chunks.length >= 20_000 },
  );
  const queries = QUERIES[0] ?? [];
  retriever.retrieve(
    queries,
    await createBenchEmbedder().embed(queries, 'query', new AbortController().signal),
  );
  db.close();
  return performance.now() - start;
}

/** Drops the project's snapshot, as a write of its chunks does, so opens join the blocks. */
async function dropSnapshot(name: string): Promise<void> {
  const db = await openBenchDb(name);
  await db.searchSnapshots.delete(PROJECT);
  db.close();
}

async function deleteDb(name: string): Promise<void> {
  const db = await openBenchDb(name);
  await db.delete();
}

export interface OpenPhases {
  /** The project's files, without text. */
  listFilesMs: number;
  /** Every file's stored block read from IndexedDB (and its row's shape checked). */
  readBlocksMs: number;
  /** Each block checked against its file (isSearchBlockUsable). */
  checkBlocksMs: number;
  /** The blocks joined into one keyword and vector index. */
  joinMs: number;
  termsStored: number;
}

export interface SnapshotPhases {
  /** The project's files' ids and names (to check the snapshot was joined from them). */
  listFilesMs: number;
  /** The snapshot's row read from IndexedDB and its arrays but the postings (opened). */
  readSnapshotMs: number;
  /** Its arrays checked and the index made over them. */
  restoreMs: number;
  /** The first query's postings read from the stored Blob, by range, and checked. */
  readPostingsMs: number;
  /** What its typed arrays hold, postings included. */
  arrayBytes: number;
  /** What an open reads of them: all but the postings. */
  openedBytes: number;
}

/** Where a cold open from the snapshot spends its time (the calls project search makes). */
async function measureSnapshotPhases(name: string): Promise<SnapshotPhases> {
  const db = await openBenchDb(name);
  const stores = createStores(db, clock, ids);
  const t0 = performance.now();
  await stores.files.listNamesByProject(PROJECT);
  const t1 = performance.now();
  const stored = (await stores.searchBlocks.readSnapshot(PROJECT)).snapshot;
  const snapshot = await stored?.open();
  const t2 = performance.now();
  if (snapshot === null || snapshot === undefined) throw new Error('no snapshot is stored');
  const restored = restoreRetrieverFromSnapshot(snapshot);
  const t3 = performance.now();
  await restored.retriever.prepare(QUERIES[0] ?? []);
  const t4 = performance.now();
  db.close();
  const { chunkFiles, keywords, vectors } = snapshot;
  const arrays = [
    chunkFiles,
    ...keywords.fields.flatMap((field) => [field.starts, field.lengths]),
    vectors.rows,
    vectors.values,
    vectors.scales ?? new Uint8Array(0),
  ];
  const openedBytes = arrays.reduce((total, array) => total + array.byteLength, 0);
  return {
    listFilesMs: t1 - t0,
    readSnapshotMs: t2 - t1,
    restoreMs: t3 - t2,
    readPostingsMs: t4 - t3,
    arrayBytes: openedBytes + keywords.fields.reduce((total, field) => total + field.postings.length, 0),
    openedBytes,
  };
}

/** Where a cold open's time goes, phase by phase (the same calls project search makes). */
async function measureOpenPhases(name: string): Promise<OpenPhases> {
  const db = await openBenchDb(name);
  const stores = createStores(db, clock, ids);
  const t0 = performance.now();
  const files = await stores.files.listInfoByProject(PROJECT);
  const t1 = performance.now();
  const stored = await stores.searchBlocks.listByProject(PROJECT);
  const t2 = performance.now();
  const blocks = files.flatMap((file) => {
    const block = stored.get(file.id);
    return block !== undefined && isSearchBlockUsable(block, file) ? [block] : [];
  });
  const t3 = performance.now();
  createRetrieverFromBlocks(blocks, MODEL_ID, {
    isInt8: blocks.length * CHUNKS_PER_FILE >= 20_000,
  });
  const t4 = performance.now();
  db.close();
  if (blocks.length !== files.length) throw new Error('some stored block was not usable');
  return {
    listFilesMs: t1 - t0,
    readBlocksMs: t2 - t1,
    checkBlocksMs: t3 - t2,
    joinMs: t4 - t3,
    termsStored: blocks.reduce((total, { keywords: { terms } }) => total + countTerms(terms), 0),
  };
}

/**
 * Opened as cold-open.html#open=NAME (or #open-blocks=NAME, from the blocks), the page starts
 * its cold open as its script runs, as the app's own code would, and leaves the figures in
 * `coldOpen`: page load → first answer then holds no round trip to the bench's driver.
 */
const autoOpen = /^#open(-blocks)?=(.+)$/.exec(location.hash);
const coldOpen =
  autoOpen === null ? null : openAndSearch(decodeURIComponent(autoOpen[2] ?? ''), autoOpen[1] !== undefined);

Object.assign(globalThis, {
  benchReady: true,
  coldOpen,
  seedProject,
  openAndSearch,
  rebuildFromRows,
  measureOpenPhases,
  measureSnapshotPhases,
  dropSnapshot,
  deleteDb,
});
