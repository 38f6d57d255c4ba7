import { describe, expect, it } from 'vitest';
import type { ChunkStore, Embedder } from '../../../../src/core/ports';
import { watchTableWrites } from '../../../../src/storage/watch-writes';
import { createEmbeddingHost } from '../../../../src/workers/embedding/embedding-host';
import { createProjectSearch } from '../../../../src/workers/embedding/project-search';
import { createRagStores, fixtureInput, ingestAll, PROJECT } from '../rag-stores';
import { loadTinyEmbedder, TINY_MODEL_SETTINGS } from './tiny-model';

const signal = new AbortController().signal;

/** A project of three documents, and a search over it that counts how often it reads the chunks. */
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
  const reads = { chunks: 0 };
  const chunks: ChunkStore = {
    ...stores.chunks,
    listByProject: (projectId) => {
      reads.chunks++;
      return stores.chunks.listByProject(projectId);
    },
  };
  const search = createProjectSearch({
    files: stores.files,
    chunks,
    loadEmbedder,
    watchWrites: (onWrite) => watchTableWrites(stores.db, ['files', 'chunks'], onWrite),
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
    expect(reads.chunks).toBe(1);
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
    expect(reads.chunks).toBe(2);
    await search.search(PROJECT, ['release date'], signal);
    expect(reads.chunks).toBe(2);
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
    expect(reads.chunks).toBe(2);
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
