import { describe, expect, it, vi } from 'vitest';
import type { FileId } from '../../../../src/core/model';
import type { Embedder, FileStore, SearchBlockStore } from '../../../../src/core/ports';
import { buildFileSearchBlock } from '../../../../src/core/rag';
import { readWholeSnapshot } from '../../storage/read-whole-snapshot';
import { watchTableWrites } from '../../../../src/storage/watch-writes';
import { createEmbeddingHost } from '../../../../src/workers/embedding/embedding-host';
import { createProjectSearch } from '../../../../src/workers/embedding/project-search';
import { createRagStores, fixtureInput, ingestAll, PROJECT } from '../rag-stores';
import { loadTinyEmbedder, TINY_MODEL_SETTINGS } from './tiny-model';

const signal = new AbortController().signal;

/**
 * Stores no snapshot: the searches of the tests on blocks join the blocks every time, as a
 * project did before snapshots (and does when storing one fails).
 */
const skipSnapshots = () => undefined;

/** Background work (storing a snapshot) held until `settle` runs it, so tests choose when. */
function collectBackground() {
  const pending: Array<() => Promise<unknown>> = [];
  return {
    run: (work: () => Promise<unknown>) => {
      pending.push(work);
    },
    settle: () => Promise.all(pending.splice(0).map((work) => work())),
  };
}

/** The store, counting the joins of a project's blocks and the reads of a file's chunks. */
function countBlockReads(store: SearchBlockStore) {
  const reads = { joins: 0, fileChunks: 0, snapshots: 0 };
  const searchBlocks: SearchBlockStore = {
    ...store,
    readSnapshot: async (projectId) => {
      const { generation, snapshot } = await store.readSnapshot(projectId);
      const counted = snapshot === null ? null : {
        head: snapshot.head,
        open: () => {
          reads.snapshots++;
          return snapshot.open();
        },
      };
      return { generation, snapshot: counted };
    },
    listByProject: (projectId) => {
      reads.joins++;
      return store.listByProject(projectId);
    },
    readChunks: (fileId) => {
      reads.fileChunks++;
      return store.readChunks(fileId);
    },
  };
  return { reads, searchBlocks };
}

/**
 * A project of three documents, and a search over it that counts how often it reads a stored
 * snapshot's arrays, how often it joins the files' search blocks into an index, and how often it
 * reads a file's chunks to rebuild a block.
 */
async function createWatchedSearch(
  loadEmbedder: () => Promise<Embedder | null> = () => Promise.resolve(null),
) {
  const stores = await createRagStores();
  const outcomes = await ingestAll(
    stores,
    PROJECT,
    [fixtureInput('report.pdf'), fixtureInput('minutes.docx'), fixtureInput('article.html')],
    () => undefined,
  );
  const { reads, searchBlocks } = countBlockReads(stores.searchBlocks);
  const search = createProjectSearch({
    files: stores.files,
    chunks: stores.chunks,
    searchBlocks,
    loadEmbedder,
    watchWrites: (onWrite) => watchTableWrites(stores.db, ['files', 'chunks'], onWrite),
    runInBackground: skipSnapshots,
  });
  const fileIds = outcomes.flatMap((outcome) =>
    outcome.kind === 'stored' ? [outcome.fileId] : [],
  );
  return { stores, search, reads, fileIds };
}

type Stores = Awaited<ReturnType<typeof createWatchedSearch>>['stores'];

function embedProject(stores: Stores, embedder: Embedder) {
  const host = createEmbeddingHost({ ...stores, loadEmbedder: () => Promise.resolve(embedder) });
  return host.embedProject('job', PROJECT, TINY_MODEL_SETTINGS, () => undefined);
}

describe('createProjectSearch with watched writes', () => {
  it('answers a second search from the index built by the first', async () => {
    const { search, reads } = await createWatchedSearch();
    const first = await search.search(PROJECT, ['Lisbon office'], signal);
    const second = await search.search(PROJECT, ['migration guide'], signal);
    const again = await search.search(PROJECT, ['Lisbon office'], signal);
    expect(reads).toEqual({ joins: 1, fileChunks: 3 , snapshots: 0 });
    expect(first.hits[0]?.fileName).toBe('report.pdf');
    expect(second.hits[0]?.text).toContain('Marta will write the migration guide');
    expect(again).toEqual(first);
  });

  it('re-indexes the project once its chunks are embedded, and searches by meaning then', async () => {
    const tiny = await loadTinyEmbedder();
    const { stores, search, reads } = await createWatchedSearch(() => Promise.resolve(tiny));
    expect((await search.search(PROJECT, ['Lisbon office'], signal)).mode).toBe('keyword');
    await embedProject(stores, tiny);
    const after = await search.search(PROJECT, ['Lisbon office', 'release date'], signal);
    expect(after.mode).toBe('hybrid');
    // Every file's chunks changed (they have vectors now), so every block is rebuilt.
    expect(reads).toEqual({ joins: 2, fileChunks: 6 , snapshots: 0 });
    await search.search(PROJECT, ['release date'], signal);
    expect(reads).toEqual({ joins: 2, fileChunks: 6 , snapshots: 0 });
  });

  it('no longer finds a deleted file', async () => {
    const { stores, search } = await createWatchedSearch();
    const before = await search.search(PROJECT, ['migration guide'], signal);
    const minutes = before.hits.find((hit) => hit.fileName === 'minutes.docx');
    if (minutes === undefined) throw new Error('expected minutes.docx before the deletion');
    await stores.files.delete(minutes.fileId);
    const after = await search.search(PROJECT, ['migration guide'], signal);
    expect(after.hits.map((hit) => hit.fileName)).not.toContain('minutes.docx');
  });

  it('re-indexes when the embedding model changes, leaving out vectors of the old one', async () => {
    const tiny = await loadTinyEmbedder();
    let current: Embedder = tiny;
    const { stores, search, reads } = await createWatchedSearch(() => Promise.resolve(current));
    await embedProject(stores, tiny);
    expect((await search.search(PROJECT, ['release date'], signal)).mode).toBe('hybrid');
    current = { ...tiny, modelId: 'another-model', embed: tiny.embed.bind(tiny) };
    expect((await search.search(PROJECT, ['release date'], signal)).mode).toBe('keyword');
    // The blocks hold the vectors of every model: a new model needs no chunk read.
    expect(reads).toEqual({ joins: 2, fileChunks: 3 , snapshots: 0 });
  });
});

/**
 * Another search over the same database: what a reopened app (or another tab) starts with.
 * Without `background` it stores no snapshot.
 */
function reopen(
  stores: Stores,
  background?: ReturnType<typeof collectBackground>,
  loadEmbedder: () => Promise<Embedder | null> = () => Promise.resolve(null),
  /** With the app's index cache (watched writes): an index opened stays for the next search. */
  isCached = false,
) {
  const { reads, searchBlocks } = countBlockReads(stores.searchBlocks);
  // Reads of file rows: whole listings, and single rows (each row holds its file's bytes).
  const fileReads = { listings: 0, rows: 0 };
  const files: FileStore = {
    ...stores.files,
    listInfoByProject: (projectId) => (fileReads.listings++, stores.files.listInfoByProject(projectId)),
    getInfo: (id) => (fileReads.rows++, stores.files.getInfo(id)),
  };
  const search = createProjectSearch({
    ...stores,
    files,
    searchBlocks,
    loadEmbedder,
    runInBackground: background?.run ?? skipSnapshots,
    ...(isCached ? { watchWrites: (onWrite: () => void) => watchTableWrites(stores.db, ['files', 'chunks'], onWrite) } : {}),
  });
  return { search, reads, fileReads };
}

const QUERIES = [['Lisbon office'], ['migration guide', 'release date'], ['quarterly revenue']];

/** One search after another: each later one finds the blocks the first stored. */
async function searchAll(search: ReturnType<typeof createProjectSearch>) {
  const results = [];
  for (const queries of QUERIES) results.push(await search.search(PROJECT, queries, signal));
  return results;
}

/**
 * A reopened project answers as `first` did, reading the chunks of each of its three files once
 * to rebuild their blocks; stored again, the next opening reads no chunk.
 */
async function expectRebuiltOnce(stores: Stores, first: Awaited<ReturnType<typeof searchAll>>) {
  const reopened = reopen(stores);
  expect(await searchAll(reopened.search)).toEqual(first);
  expect(reopened.reads.fileChunks).toBe(3);
  const again = reopen(stores);
  expect(await searchAll(again.search)).toEqual(first);
  expect(again.reads.fileChunks).toBe(0);
}

describe('stored search blocks', () => {
  it('let a reopened project answer from the stored blocks, reading no chunk, exactly as before', async () => {
    const { stores, search } = await createWatchedSearch();
    const first = await searchAll(search);
    expect(first.flatMap((result) => result.hits).length).toBeGreaterThan(0);
    const reopened = reopen(stores);
    expect(await searchAll(reopened.search)).toEqual(first);
    expect(reopened.reads).toEqual({ joins: 3, fileChunks: 0 , snapshots: 0 });
  });

  it('rebuild a block from an older build or a corrupt one from the chunks, and rank as before', async () => {
    const { stores, search, fileIds } = await createWatchedSearch();
    const first = await searchAll(search);
    const [older, corrupt, missing] = fileIds as [FileId, FileId, FileId];
    await stores.db.searchBlocks.where('fileId').equals(older).modify((row) => {
      if (row.block !== null) row.block.format -= 1;
    });
    await stores.db.searchBlocks.where('fileId').equals(corrupt).modify((row) => {
      if (row.block !== null) row.block.keywords.fields[0].termRefs = new Uint32Array([9_999_999]);
    });
    await stores.db.searchBlocks.delete(missing);
    await expectRebuiltOnce(stores, first);
  });

  it('rebuild a block stored with its terms as a list (the layout before packed terms) or with packed terms that do not read', async () => {
    const { stores, search, fileIds } = await createWatchedSearch();
    const first = await searchAll(search);
    const [listed, unended, emptied] = fileIds as [FileId, FileId, FileId];
    await stores.db.searchBlocks.where('fileId').equals(listed).modify((row) => {
      if (row.block === null) return;
      const { terms } = row.block.keywords;
      row.block.keywords.terms = terms.split('\n').slice(0, -1) as never;
      row.block.format -= 1;
    });
    await stores.db.searchBlocks.where('fileId').equals(unended).modify((row) => {
      if (row.block !== null) row.block.keywords.terms = row.block.keywords.terms.slice(0, -1);
    });
    await stores.db.searchBlocks.where('fileId').equals(emptied).modify((row) => {
      if (row.block !== null) row.block.keywords.terms = `\n${row.block.keywords.terms}`;
    });
    await expectRebuiltOnce(stores, first);
  });

  it('rebuild a block whose row does not read at all', async () => {
    const { stores, search, fileIds } = await createWatchedSearch();
    const first = await searchAll(search);
    await stores.db.searchBlocks.update(fileIds[0]!, { block: { junk: true } as never });
    const reopened = reopen(stores);
    expect(await searchAll(reopened.search)).toEqual(first);
  });

  it('go with their file, and are rebuilt when the file is chunked again', async () => {
    const { stores, search, fileIds } = await createWatchedSearch();
    await searchAll(search);
    const [deleted, rechunked] = fileIds as [FileId, FileId];
    await stores.files.delete(deleted);
    expect(await stores.db.searchBlocks.get(deleted)).toBeUndefined();
    const chunks = await stores.chunks.listByFile(rechunked);
    await stores.chunks.replaceForFile(rechunked, chunks.slice(1));
    expect((await stores.db.searchBlocks.get(rechunked))?.block).toBeNull();
    const reopened = reopen(stores);
    const after = await searchAll(reopened.search);
    expect(after.flatMap((result) => result.hits).map((hit) => hit.fileId)).not.toContain(deleted);
    expect(reopened.reads.fileChunks).toBe(1);
  });

  it('are not stored when the chunks changed after they were read', async () => {
    const { stores, fileIds } = await createWatchedSearch();
    const fileId = fileIds[0] as FileId;
    const { revision, chunks } = await stores.searchBlocks.readChunks(fileId);
    const file = await stores.files.get(fileId);
    if (file === undefined) throw new Error('expected the file');
    const block = buildFileSearchBlock(file, chunks);
    await stores.chunks.replaceForFile(fileId, chunks.slice(1));
    expect(await stores.searchBlocks.put(block, revision)).toBe(false);
    expect((await stores.db.searchBlocks.get(fileId))?.block).toBeNull();
    const current = await stores.searchBlocks.readChunks(fileId);
    expect(await stores.searchBlocks.put(buildFileSearchBlock(file, current.chunks), current.revision)).toBe(true);
    await stores.files.delete(fileId);
    expect(await stores.searchBlocks.put(block, 0)).toBe(false);
    expect(await stores.db.searchBlocks.get(fileId)).toBeUndefined();
  });
});

/**
 * A project searched once with snapshots on (storing one), and what a search joining the blocks
 * answers: what every opening from the snapshot must answer too.
 */
async function createSnapshotted(loadEmbedder?: () => Promise<Embedder | null>) {
  const { stores, search, fileIds } = await createWatchedSearch(loadEmbedder);
  const expected = await searchAll(search);
  expect(expected.flatMap((result) => result.hits).length).toBeGreaterThan(0);
  const background = collectBackground();
  await reopen(stores, background, loadEmbedder).search.search(PROJECT, QUERIES[0] ?? [], signal);
  expect(await background.settle()).toEqual([true]);
  return { stores, fileIds, expected, background };
}

const readSnapshotRow = (stores: Stores) => stores.db.searchSnapshots.get(PROJECT);

describe('stored search snapshots', () => {
  it('let a reopened project answer from one stored row, reading no block and no chunk, exactly as from the blocks', async () => {
    const { stores, expected } = await createSnapshotted();
    const row = await readSnapshotRow(stores);
    expect((await readWholeSnapshot(row?.snapshot))?.chunkIds.length).toBeGreaterThan(0);
    expect(row?.snapshot?.data).toBeInstanceOf(Blob);
    const reopened = reopen(stores);
    expect(await searchAll(reopened.search)).toEqual(expected);
    expect(reopened.reads).toEqual({ joins: 0, fileChunks: 0, snapshots: 3 });
    // The snapshot is checked against the files' ids and names from an index: no file row is
    // listed, and each file a hit names is read once per opening (without watched writes every
    // search opens the project again). The hits still carry each file's name and type.
    const named = expected.map((result) => new Set(result.hits.map((hit) => hit.fileId)).size);
    expect(reopened.fileReads).toEqual({ listings: 0, rows: named.reduce((total, count) => total + count, 0) });
  });

  it('hold the vectors: an embedded project answers from its snapshot by meaning, as from the blocks', async () => {
    const tiny = await loadTinyEmbedder();
    const { stores } = await createWatchedSearch(() => Promise.resolve(tiny));
    await embedProject(stores, tiny);
    const load = () => Promise.resolve(tiny);
    const fromBlocks = reopen(stores, undefined, load);
    const expected = await searchAll(fromBlocks.search);
    expect(expected.map((result) => result.mode)).toEqual(['hybrid', 'hybrid', 'hybrid']);
    const background = collectBackground();
    await reopen(stores, background, load).search.search(PROJECT, QUERIES[0] ?? [], signal);
    expect(await background.settle()).toEqual([true]);
    const reopened = reopen(stores, undefined, load);
    expect(await searchAll(reopened.search)).toEqual(expected);
    expect(reopened.reads).toEqual({ joins: 0, fileChunks: 0, snapshots: 3 });
    // Another model: the snapshot holds only the old model's vectors, so the blocks are joined.
    const other: Embedder = { ...tiny, modelId: 'another-model', embed: tiny.embed.bind(tiny) };
    const switched = reopen(stores, undefined, () => Promise.resolve(other));
    expect((await switched.search.search(PROJECT, ['release date'], signal)).mode).toBe('keyword');
    // Its arrays were read while the model loaded, then left unused.
    expect(switched.reads).toEqual({ joins: 1, fileChunks: 0, snapshots: 1 });
  });

  it('are read while the embedding model loads, not after it', async () => {
    const tiny = await loadTinyEmbedder();
    const { stores } = await createWatchedSearch(() => Promise.resolve(tiny));
    await embedProject(stores, tiny);
    const background = collectBackground();
    const expected = await reopen(stores, background, () => Promise.resolve(tiny)).search.search(PROJECT, QUERIES[0] ?? [], signal);
    expect(await background.settle()).toEqual([true]);
    let release: (embedder: Embedder) => void = () => undefined;
    const model = new Promise<Embedder>((resolve) => (release = resolve));
    const waiting = reopen(stores, undefined, () => model);
    const answer = waiting.search.search(PROJECT, QUERIES[0] ?? [], signal);
    await vi.waitFor(() => expect(waiting.reads.snapshots).toBe(1));
    release(tiny);
    expect(await answer).toEqual(expected);
    expect(waiting.reads).toEqual({ joins: 0, fileChunks: 0, snapshots: 1 });
  });

  it('are dropped by any write of the project\'s chunks, and joined again from the blocks', async () => {
    const { stores, fileIds } = await createSnapshotted();
    const before = await readSnapshotRow(stores);
    const rechunked = fileIds[1] as FileId;
    const chunks = await stores.chunks.listByFile(rechunked);
    await stores.chunks.replaceForFile(rechunked, chunks.slice(1));
    expect(await readSnapshotRow(stores)).toEqual({
      projectId: PROJECT,
      generation: (before?.generation ?? 0) + 1,
      snapshot: null,
    });
    const expected = await searchAll(reopen(stores).search);
    const background = collectBackground();
    const reopened = reopen(stores, background);
    expect(await searchAll(reopened.search)).toEqual(expected);
    expect(reopened.reads.joins).toBe(3);
    await background.settle();
    const again = reopen(stores);
    expect(await searchAll(again.search)).toEqual(expected);
    expect(again.reads.joins).toBe(0);
  });

  it('are not used, nor their arrays read, once a file is renamed, added or deleted', async () => {
    const { stores, fileIds, expected } = await createSnapshotted();
    const renamed = fileIds[0] as FileId;
    const file = await stores.files.get(renamed);
    if (file === undefined) throw new Error('expected the file');
    await stores.files.put({ ...file, name: 'renamed report.pdf' });
    const afterRename = reopen(stores);
    const results = await searchAll(afterRename.search);
    // The row names other files: the snapshot's bytes are never read.
    expect(afterRename.reads).toEqual({ joins: 3, fileChunks: 1, snapshots: 0 });
    expect(results.flatMap((result) => result.hits).map((hit) => hit.fileName)).toContain('renamed report.pdf');
    expect(results).not.toEqual(expected);
    await stores.files.delete(renamed);
    const afterDelete = reopen(stores);
    const remaining = await searchAll(afterDelete.search);
    expect(afterDelete.reads.joins).toBe(3);
    expect(remaining.flatMap((result) => result.hits).map((hit) => hit.fileId)).not.toContain(renamed);
  });

  it('are joined again from the blocks and replaced when damaged or unreadable', async () => {
    const { stores, expected } = await createSnapshotted();
    type Row = NonNullable<Awaited<ReturnType<typeof readSnapshotRow>>>;
    // Postings that keep their shape but not their sense: found as a search first reads them.
    const stored = (await readSnapshotRow(stores))?.snapshot;
    const postings = stored?.parts['text.postings'];
    if (stored === undefined || stored === null || postings === undefined) throw new Error('expected a snapshot');
    const bytes = new Uint8Array(await stored.data.arrayBuffer());
    bytes.fill(0xff, postings.offset, postings.offset + postings.length);
    const garbled = new Blob([bytes]);
    const damage: Array<(row: Row) => void> = [
      (row) => {
        if (row.snapshot !== null) row.snapshot.data = garbled;
      },
      // Arrays that disagree: a posting of a chunk the project does not have.
      (row) => {
        if (row.snapshot === null) return;
        row.snapshot.parts['text.postings'] = { kind: 'u8', offset: 0, length: 1 };
      },
      // Bytes cut short, a part of another kind, a row that does not read.
      (row) => {
        if (row.snapshot !== null) row.snapshot.data = row.snapshot.data.slice(0, 100);
      },
      (row) => {
        if (row.snapshot === null) return;
        row.snapshot.parts.terms = { kind: 'f32' as never, offset: 0, length: 1 };
      },
      (row) => (row.snapshot = { junk: true } as never),
    ];
    for (const breakIt of damage) {
      await stores.db.searchSnapshots.where('projectId').equals(PROJECT).modify(breakIt);
      const background = collectBackground();
      const reopened = reopen(stores, background);
      expect(await searchAll(reopened.search)).toEqual(expected);
      expect(reopened.reads.joins).toBe(3);
      expect(await background.settle()).toEqual([true, true, true]);
      const again = reopen(stores);
      expect(await searchAll(again.search)).toEqual(expected);
      expect(again.reads.joins).toBe(0);
    }
  });

  it('that cannot be stored (a full disk) leave the search answering, and the next open joins the blocks', async () => {
    const { stores } = await createWatchedSearch();
    const expected = await searchAll(reopen(stores).search);
    let attempts = 0;
    const full = createProjectSearch({
      ...stores,
      searchBlocks: {
        ...stores.searchBlocks,
        putSnapshot: () => {
          attempts++;
          return Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
        },
      },
      loadEmbedder: () => Promise.resolve(null),
    });
    expect(await searchAll(full)).toEqual(expected);
    // The store is tried on a timer after each search, and its failure goes nowhere.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(attempts).toBe(3);
    expect((await stores.searchBlocks.readSnapshot(PROJECT)).snapshot).toBeNull();
    const again = reopen(stores);
    expect(await searchAll(again.search)).toEqual(expected);
    expect(again.reads.joins).toBe(3);
  });

  it('are not stored when the project\'s chunks changed after the build began, or the project went', async () => {
    const { stores, fileIds } = await createSnapshotted();
    const { generation } = await stores.searchBlocks.readSnapshot(PROJECT);
    const snapshot = await readWholeSnapshot((await readSnapshotRow(stores))?.snapshot);
    if (snapshot === null) throw new Error('expected a snapshot');
    const fileId = fileIds[0] as FileId;
    await stores.chunks.replaceForFile(fileId, (await stores.chunks.listByFile(fileId)).slice(1));
    expect(await stores.searchBlocks.putSnapshot(PROJECT, snapshot, generation)).toBe(false);
    expect((await readSnapshotRow(stores))?.snapshot).toBeNull();
    expect(await stores.searchBlocks.putSnapshot(PROJECT, snapshot, generation + 1)).toBe(true);
    await stores.projects.delete(PROJECT);
    expect(await stores.files.listInfoByProject(PROJECT)).toEqual([]);
    expect(await readSnapshotRow(stores)).toBeUndefined();
    expect(await stores.searchBlocks.putSnapshot(PROJECT, snapshot, 0)).toBe(false);
    expect(await readSnapshotRow(stores)).toBeUndefined();
  });
});

/** A model loader that records each time it is asked for the model. */
function countLoads(embedder: Embedder | null) {
  const loads: string[] = [];
  const load = () => {
    loads.push('model');
    return Promise.resolve(embedder);
  };
  return { loads, load };
}

describe('preparing a project for its first search', () => {
  it('reads a current snapshot and loads the model ahead, so the first search reads and joins nothing more', async () => {
    const tiny = await loadTinyEmbedder();
    const { stores } = await createWatchedSearch(() => Promise.resolve(tiny));
    await embedProject(stores, tiny);
    const background = collectBackground();
    const expected = await reopen(stores, background, () => Promise.resolve(tiny)).search.search(PROJECT, QUERIES[0] ?? [], signal);
    expect(expected.mode).toBe('hybrid');
    expect(await background.settle()).toEqual([true]);
    const { loads, load } = countLoads(tiny);
    const opened = reopen(stores, undefined, load, true);
    await opened.search.prepare(PROJECT);
    expect(opened.reads).toEqual({ joins: 0, fileChunks: 0, snapshots: 1 });
    expect(loads.length).toBeGreaterThan(0);
    expect(await opened.search.search(PROJECT, QUERIES[0] ?? [], signal)).toEqual(expected);
    expect(opened.reads).toEqual({ joins: 0, fileChunks: 0, snapshots: 1 });
  });

  it('builds nothing and loads no model when no current snapshot is stored', async () => {
    const { stores, fileIds } = await createWatchedSearch();
    const { loads, load } = countLoads(null);
    const fresh = reopen(stores, undefined, load, true);
    await fresh.search.prepare(PROJECT);
    expect({ reads: fresh.reads, loads }).toEqual({ reads: { joins: 0, fileChunks: 0, snapshots: 0 }, loads: [] });
    // A snapshot stored, then a file renamed: the snapshot names other files.
    const background = collectBackground();
    await reopen(stores, background).search.search(PROJECT, QUERIES[0] ?? [], signal);
    expect(await background.settle()).toEqual([true]);
    const file = await stores.files.get(fileIds[0] as FileId);
    if (file === undefined) throw new Error('expected the file');
    await stores.files.put({ ...file, name: 'renamed.pdf' });
    const renamed = reopen(stores, undefined, load, true);
    await renamed.search.prepare(PROJECT);
    expect({ reads: renamed.reads, loads }).toEqual({ reads: { joins: 0, fileChunks: 0, snapshots: 0 }, loads: [] });
  });

  it('never rejects: a store that cannot be read is the search\'s to report', async () => {
    const { stores } = await createWatchedSearch();
    const search = createProjectSearch({
      ...stores,
      searchBlocks: { ...stores.searchBlocks, readSnapshot: () => Promise.reject(new Error('The disk is gone.')) },
      loadEmbedder: () => Promise.resolve(null),
      runInBackground: skipSnapshots,
    });
    await expect(search.prepare(PROJECT)).resolves.toBeUndefined();
    await expect(search.search(PROJECT, ['Lisbon office'], signal)).rejects.toThrow('The disk is gone.');
  });
});

describe('watchTableWrites', () => {
  it('reports writes to the watched tables of this database only, until unsubscribed', async () => {
    const { stores, fileIds } = await createWatchedSearch();
    const writes: string[] = [];
    const stop = watchTableWrites(stores.db, ['chunks'], () => writes.push('chunks'));
    await stores.settings.set('unrelated', 1);
    expect(writes).toEqual([]);
    const chunks = await stores.chunks.listByFile(fileIds[0]!);
    await stores.chunks.replaceForFile(fileIds[0]!, chunks.slice(1));
    expect(writes).toEqual(['chunks']);
    const other = await createRagStores();
    await other.chunks.replaceForFile(fileIds[0]!, []);
    expect(writes).toEqual(['chunks']);
    stop();
    await stores.chunks.replaceForFile(fileIds[0]!, []);
    expect(writes).toEqual(['chunks']);
  });
});
