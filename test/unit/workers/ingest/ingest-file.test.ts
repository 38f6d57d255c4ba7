import { describe, expect, it } from 'vitest';
import { parseChunkLocation } from '../../../../src/core/rag';
import { StorageError } from '../../../../src/storage';
import { loadProjectFiles } from '../../../../src/workers/agent/project-files';
import type { IngestProgress } from '../../../../src/workers/ingest/ingest.api';
import {
  createInlineIngest,
  createRagStores,
  fixtureInput,
  ingestAll,
  PROJECT,
} from '../rag-stores';

describe('ingestFiles', () => {
  it('stores a multi-page PDF with its text, token count, page map and page-bound chunks', async () => {
    const stores = await createRagStores();
    const progress: IngestProgress[] = [];
    const [outcome] = await ingestAll(
      stores,
      PROJECT,
      [fixtureInput('report.pdf', 'application/pdf')],
      (event) => progress.push(event),
    );
    if (outcome?.kind !== 'stored') throw new Error(`expected stored, got ${outcome?.kind}`);
    const file = await stores.files.get(outcome.fileId);
    expect(file).toMatchObject({
      status: 'ready',
      projectId: PROJECT,
      name: 'report.pdf',
      mimeType: 'application/pdf',
    });
    expect(file?.tokenCount).toBe(stores.tokens.count(file?.text ?? ''));
    expect(file?.pageMap).toHaveLength(3);
    const chunks = await stores.chunks.listByFile(outcome.fileId);
    expect(chunks.map((chunk) => parseChunkLocation(chunk.location ?? '')?.page)).toEqual([
      1, 2, 3,
    ]);
    expect(chunks[2]?.text).toContain('Lisbon');
    expect(chunks.every((chunk) => chunk.embedding === null && chunk.projectId === PROJECT)).toBe(
      true,
    );
    // One event per page while extracting; counting and chunking may report along the way.
    const stages = progress.map((event) => event.stage);
    expect(stages.filter((stage, i) => stage !== 'extract' && stage !== stages[i - 1])).toEqual([
      'hash',
      'count',
      'chunk',
      'done',
    ]);
    expect(stages.filter((stage) => stage === 'extract')).toHaveLength(4);
    expect(progress[4]?.fraction).toBeCloseTo(0.6);
    expect(progress.map((event) => event.fraction)).toEqual(
      [...progress.map((event) => event.fraction)].sort((a, b) => a - b),
    );
  });

  it('keeps the character range of every chunk so a citation opens the passage', async () => {
    const stores = await createRagStores();
    const [outcome] = await ingestAll(
      stores,
      PROJECT,
      [fixtureInput('article.html', 'text/html')],
      () => undefined,
    );
    if (outcome?.kind !== 'stored') throw new Error('expected stored');
    const file = await stores.files.get(outcome.fileId);
    for (const chunk of await stores.chunks.listByFile(outcome.fileId)) {
      const position = parseChunkLocation(chunk.location ?? '');
      expect(file?.text?.slice(position?.charStart, position?.charEnd)).toBe(chunk.text);
      expect(position?.headingPath).toEqual(['Night trains return to Europe']);
    }
  });

  it('gives the chunks of a Word document the heading they fall under', async () => {
    const stores = await createRagStores();
    const [outcome] = await ingestAll(
      stores,
      PROJECT,
      [fixtureInput('minutes.docx')],
      () => undefined,
    );
    if (outcome?.kind !== 'stored') throw new Error('expected stored');
    const [chunk] = await stores.chunks.listByFile(outcome.fileId);
    expect(parseChunkLocation(chunk?.location ?? '')?.headingPath).toEqual(['Meeting minutes']);
  });

  it('detects a duplicate by content hash within the project and stores nothing new', async () => {
    const stores = await createRagStores();
    const [first] = await ingestAll(stores, PROJECT, [fixtureInput('minutes.docx')]);
    const [second] = await ingestAll(stores, PROJECT, [
      { ...fixtureInput('minutes.docx'), name: 'copy of minutes.docx' },
    ]);
    expect(first?.kind).toBe('stored');
    expect(second).toEqual({
      kind: 'duplicate',
      fileId: first?.kind === 'stored' ? first.fileId : '',
      name: 'minutes.docx',
    });
    expect(await stores.files.listByProject(PROJECT)).toHaveLength(1);
  });

  it('keeps unreadable files, marked with the reason, and refuses unsupported ones', async () => {
    const stores = await createRagStores();
    const outcomes = await ingestAll(
      stores,
      PROJECT,
      [
        fixtureInput('encrypted.pdf'),
        fixtureInput('scanned.pdf'),
        fixtureInput('broken.pdf'),
        { name: 'song.mp3', mimeType: 'audio/mpeg', blob: new Blob(['x']) },
      ],
      () => undefined,
    );
    expect(
      outcomes.map((outcome) =>
        outcome.kind === 'stored' ? `${outcome.status}:${outcome.error?.code}` : outcome.kind,
      ),
    ).toEqual(['error:encrypted_pdf', 'no_text:no_text', 'error:broken_file', 'rejected']);
    // Files ingested side by side get their ids (and so their stored order) as each finishes
    // hashing: look them up by name.
    const stored = new Map((await stores.files.listByProject(PROJECT)).map((file) => [file.name, file]));
    expect([...stored.keys()].sort()).toEqual(['broken.pdf', 'encrypted.pdf', 'scanned.pdf']);
    expect(stored.get('encrypted.pdf')?.status).toBe('error');
    expect(stored.get('encrypted.pdf')?.error).toMatch(/password/);
    expect(stored.get('scanned.pdf')?.status).toBe('no_text');
    expect(stored.get('broken.pdf')?.status).toBe('error');
  });

  it('refuses an empty file as empty and keeps nothing of it', async () => {
    const stores = await createRagStores();
    const outcomes = await ingestAll(
      stores,
      PROJECT,
      [
        { name: 'empty.txt', mimeType: 'text/plain', blob: new Blob([]) },
        { name: 'bom.md', mimeType: '', blob: new Blob([new Uint8Array([0xef, 0xbb, 0xbf])]) },
      ],
      () => undefined,
    );
    expect(outcomes).toEqual([
      {
        kind: 'rejected',
        error: {
          code: 'empty_file',
          message: '"empty.txt" is an empty file: there is nothing to add.',
        },
      },
      {
        kind: 'rejected',
        error: {
          code: 'empty_file',
          message: '"bom.md" is an empty file: there is nothing to add.',
        },
      },
    ]);
    expect(await stores.files.listByProject(PROJECT)).toEqual([]);
  });

  it('leaves nothing behind and passes the error on when storage is full mid-file', async () => {
    const stores = await createRagStores();
    const full = new StorageError('quota_exceeded');
    const deps = {
      ...stores,
      chunks: { ...stores.chunks, replaceForFile: () => Promise.reject(full) },
    };
    const progress: IngestProgress[] = [];
    await expect(
      ingestAll(deps, PROJECT, [fixtureInput('retry.ts')], (event) => progress.push(event)),
    ).rejects.toBe(full);
    expect(await stores.files.listByProject(PROJECT)).toEqual([]);
    expect(progress.at(-1)?.stage).toBe('failed');
  });

  it('stores an image as an image with its size and a token estimate', async () => {
    const stores = await createRagStores();
    const [outcome] = await ingestAll(
      stores,
      null,
      [fixtureInput('pixel-art.png', 'image/png')],
      () => undefined,
    );
    expect(outcome).toMatchObject({
      kind: 'stored',
      status: 'ready',
      chunkCount: 0,
      image: { width: 12, height: 7 },
    });
    expect(outcome?.kind === 'stored' && outcome.tokenCount).toBeGreaterThan(0);
  });

  it('stops every file when the whole job is cancelled and stores none of them', async () => {
    const stores = await createRagStores();
    const job = createInlineIngest(stores).ingestFiles(
      PROJECT,
      [fixtureInput('report.pdf'), fixtureInput('retry.ts'), fixtureInput('inventory.csv')],
      (event) => {
        if (event.stage === 'extract') job.cancel();
      },
    );
    expect((await job.result).map((outcome) => outcome.kind)).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    expect(await stores.files.listByProject(PROJECT)).toEqual([]);
  });
});

/** A CSV without blank lines: one long block that takes a while to chunk. */
function buildLargeCsv(rows: number) {
  const lines = Array.from(
    { length: rows },
    (_, i) => `${i},item ${i * 7},${i % 97},depot ${i % 13}`,
  );
  return { name: 'large.csv', mimeType: 'text/csv', blob: new Blob([lines.join('\n')]) };
}

describe('ingesting files side by side', () => {
  it('finishes a small file while a huge one before it is still being chunked, each with its own progress', async () => {
    const stores = await createRagStores();
    const events: IngestProgress[] = [];
    const outcomes = await ingestAll(
      stores,
      PROJECT,
      [buildLargeCsv(40_000), fixtureInput('retry.ts')],
      (event) => events.push(event),
    );
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['stored', 'stored']);
    const doneOrder = events.filter((event) => event.stage === 'done').map((event) => event.name);
    expect(doneOrder).toEqual(['retry.ts', 'large.csv']);
    const large = events.filter((event) => event.key === '0' && event.stage === 'chunk');
    expect(large.length).toBeGreaterThan(2);
    const fractions = large.map((event) => event.fraction);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
  });

  it('cancels one file in the middle of chunking and stores the others', async () => {
    const stores = await createRagStores();
    // Ids are handed out as each file finishes hashing, so the large file's id is whatever its
    // progress events carry, not necessarily the first one.
    let cancelledId: string | undefined;
    const job = createInlineIngest(stores).ingestFiles(
      PROJECT,
      [buildLargeCsv(40_000), fixtureInput('retry.ts'), fixtureInput('inventory.csv')],
      (event) => {
        if (event.key === '0' && event.fileId !== undefined) cancelledId = event.fileId;
        if (event.key === '0' && event.stage === 'chunk' && event.fraction > 0.76)
          job.files[0]?.cancel();
      },
    );
    const outcomes = await job.result;
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['cancelled', 'stored', 'stored']);
    const stored = await stores.files.listByProject(PROJECT);
    expect(stored.map((file) => file.name).sort()).toEqual(['inventory.csv', 'retry.ts']);
    expect(cancelledId).toBeDefined();
    const chunkOwners = new Set((await stores.chunks.listByProject(PROJECT)).map((c) => c.fileId));
    expect([...chunkOwners].sort()).toEqual(stored.map((file) => file.id).sort());
    expect(chunkOwners.has(cancelledId as never)).toBe(false);
  });

  it('lists the files of a batch in the order they were picked, whichever is stored first', async () => {
    const stores = await createRagStores();
    const stored: string[] = [];
    const outcomes = await ingestAll(
      stores,
      PROJECT,
      [buildLargeCsv(40_000), fixtureInput('retry.ts'), fixtureInput('inventory.csv')],
      (event) => {
        if (event.stage === 'done') stored.push(event.name);
      },
    );
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['stored', 'stored', 'stored']);
    const picked = ['large.csv', 'retry.ts', 'inventory.csv'];
    // The large file, picked first, is ready after the others.
    expect(stored).not.toEqual(picked);
    const listed = await stores.files.listByProject(PROJECT);
    expect(listed.map((file) => file.name)).toEqual(picked);
    // The clock here stands still: the later files' creation times run ahead of it, and none
    // of them is changed before it was created.
    expect(listed.every((file) => file.updatedAt >= file.createdAt)).toBe(true);
  });

  it('honours a cancel that arrives while the passages are being stored: no file, no passage is left', async () => {
    const stores = await createRagStores();
    let cancel = () => undefined as void;
    const job = createInlineIngest({
      ...stores,
      chunks: {
        ...stores.chunks,
        replaceForFile: async (fileId, chunks) => {
          cancel();
          await stores.chunks.replaceForFile(fileId, chunks);
        },
      },
    }).ingestFiles(PROJECT, [fixtureInput('retry.ts')], () => undefined);
    cancel = () => job.files[0]?.cancel();
    expect((await job.result).map((outcome) => outcome.kind)).toEqual(['cancelled']);
    expect(await stores.files.listByProject(PROJECT)).toEqual([]);
    expect(await stores.chunks.listByProject(PROJECT)).toEqual([]);
  });
});

describe('loadProjectFiles', () => {
  it('gives the context engine every project file with its text, count and status, without blobs', async () => {
    const stores = await createRagStores();
    await ingestAll(
      stores,
      PROJECT,
      [fixtureInput('minutes.docx'), fixtureInput('scanned.pdf')],
      () => undefined,
    );
    // Stored in the order the files finished hashing: compared by name.
    const files = (await loadProjectFiles(stores.files, PROJECT)).sort((a, b) => a.name.localeCompare(b.name));
    expect(files.map(({ name, status }) => ({ name, status }))).toEqual([
      { name: 'minutes.docx', status: 'ready' },
      { name: 'scanned.pdf', status: 'no_text' },
    ]);
    expect(files[0]?.tokenCount).toBe(stores.tokens.count(files[0]?.text ?? ''));
    expect(files[1]?.error).toMatch(/no extractable text/);
    expect(files.some((file) => 'blob' in file)).toBe(false);
  });
});

describe('a temporary chat\'s attachment', () => {
  it('is read in memory and handed back whole, leaving no row in the database', async () => {
    const stores = await createRagStores();
    const [outcome] = await createInlineIngest(stores).ingestFiles(null, [fixtureInput('inventory.csv', 'text/csv')], () => undefined, true).result;
    if (outcome?.kind !== 'stored') throw new Error(`expected stored, got ${outcome?.kind}`);
    expect(outcome.file).toMatchObject({ id: outcome.fileId, status: 'ready', projectId: null, name: 'inventory.csv' });
    expect(outcome.file?.text?.length).toBeGreaterThan(0);
    expect(await stores.db.files.count()).toBe(0);
    expect(await stores.db.fileTexts.count()).toBe(0);
    expect(await stores.db.chunks.count()).toBe(0);
  });
});
