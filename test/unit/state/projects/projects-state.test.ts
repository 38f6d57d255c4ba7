import { describe, expect, it } from 'vitest';
import { asFileId, asProjectId, type FileId, type ModelInfo } from '../../../../src/core/model';
import type { FileStore, StoredFile } from '../../../../src/core/ports';
import { AttachmentsState } from '../../../../src/state/chat/attachments.svelte';
import { NoticesState } from '../../../../src/state/shell/notices.svelte';
import { FileViewerState, type FileViewerDeps } from '../../../../src/state/projects/file-viewer.svelte';
import { describeUploadRow } from '../../../../src/state/projects/upload-rows';
import { ProjectsState } from '../../../../src/state/projects/projects.svelte';
import { NewChatProject } from '../../../../src/state/projects/new-chat-project.svelte';
import type { EmbeddingClient, EmbeddingProgressListener } from '../../../../src/workers/embedding/embedding.client';
import type { IngestClient } from '../../../../src/workers/ingest/ingest.client';
import { createInlineIngest, createRagStores, fixtureInput } from '../../workers/rag-stores';


/** No embedding model in Node: the panel must say search is by keywords. */
function createUnavailableEmbedding(): EmbeddingClient {
  const refuse = () => {
    throw new Error('not used without a model');
  };
  return {
    embedProject: refuse,
    embedFile: refuse,
    prepareModel: refuse,
    embedQueries: refuse,
    importModelFolder: refuse,
    countEmbedded: () => Promise.resolve({ embedded: 0, total: 0 }),
    isModelAvailable: () => Promise.resolve(false),
    dispose: () => undefined,
  };
}

function asFile(name: string, mimeType: string): File {
  const { blob } = fixtureInput(name, mimeType);
  return new File([blob], name.split('/').at(-1) ?? name, { type: mimeType });
}

/** One embedFile call of the fake worker below: the test reports its progress and ends it. */
interface EmbeddingCall {
  fileId: string;
  onProgress: EmbeddingProgressListener;
  finish(embedded: number, total: number): void;
  isCancelled: boolean;
}

/**
 * An embedding worker the test drives: each embedFile call waits until the test finishes it
 * or the row cancels it (which ends it as the worker does, with a `cancelled` error).
 */
function createDrivenEmbedding() {
  const calls: EmbeddingCall[] = [];
  const waiters: Array<() => void> = [];
  let embedded = { embedded: 0, total: 0 };
  const client: EmbeddingClient = {
    ...createUnavailableEmbedding(),
    isModelAvailable: () => Promise.resolve(true),
    countEmbedded: () => Promise.resolve(embedded),
    embedFile(fileId, _settings, onProgress) {
      let settle: (result: Awaited<ReturnType<EmbeddingClient['embedFile']>['result']>) => void = () => undefined;
      const result = new Promise<Awaited<ReturnType<EmbeddingClient['embedFile']>['result']>>((done) => (settle = done));
      const call: EmbeddingCall = {
        fileId,
        onProgress,
        isCancelled: false,
        finish(done, total) {
          embedded = { embedded: embedded.embedded + done, total: embedded.total + total };
          settle({ ok: true, value: { embedded: done, total } });
        },
      };
      calls.push(call);
      waiters.splice(0).forEach((wake) => wake());
      return {
        result,
        cancel() {
          call.isCancelled = true;
          settle({ ok: false, error: { code: 'cancelled', message: 'Cancelled.' } });
        },
      };
    },
  };
  /** The `count`-th embedFile call, once it has been made. */
  async function nextCall(count: number): Promise<EmbeddingCall> {
    while (calls.length < count) await new Promise<void>((wake) => waiters.push(wake));
    return calls[count - 1] as EmbeddingCall;
  }
  return { client, calls, nextCall };
}

async function createProjects(
  options: {
    embedding?: EmbeddingClient;
    ingest?: (stores: Awaited<ReturnType<typeof createRagStores>>) => IngestClient;
    prepareSearch?: (projectId: string) => Promise<void>;
  } = {},
) {
  const stores = await createRagStores();
  let id = 0;
  const newChat = new NewChatProject();
  const projects = new ProjectsState({
    projects: stores.projects,
    files: stores.files,
    settings: stores.settings,
    notices: new NoticesState(),
    newChat,
    loadIngest: () => (options.ingest ?? createInlineIngest)(stores),
    loadEmbedding: () => options.embedding ?? createUnavailableEmbedding(),
    // The search box has its own tests (project-search-state.test.ts).
    searchProject: () => Promise.reject(new Error('not searched in these tests')),
    ...(options.prepareSearch ? { prepareSearch: options.prepareSearch } : {}),
    newId: () => `id-${++id}`,
    now: () => 1_000,
  });
  return { stores, projects, newChat };
}

const SMALL_MODEL: ModelInfo = {
  id: 'tiny',
  contextWindow: 1_024,
  maxOutputTokens: 512,
  hasVision: false,
  hasTools: true,
  hasReasoning: false,
  encoding: 'o200k_base',
  isEstimate: false,
};

describe('ProjectsState', () => {
  it('readies a project for its first search as it opens, and a search failing ahead of time says nothing', async () => {
    const prepared: string[] = [];
    const { projects } = await createProjects({
      prepareSearch: (projectId) => {
        prepared.push(projectId);
        return Promise.reject(new Error('The worker is gone.'));
      },
    });
    const project = await projects.create('Notes');
    await projects.open(project.id);
    await projects.open(asProjectId('no-such-project'));
    expect(prepared).toEqual([project.id]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(projects.search.error).toBeNull();
  });

  it('uploads files with one settled row each, lists them, and reports a duplicate', async () => {
    const { projects } = await createProjects();
    const project = await projects.create('Notes');
    await projects.open(project.id);
    await projects.upload([asFile('corpus/coffee.md', 'text/markdown'), asFile('encrypted.pdf', 'application/pdf')]);

    expect(projects.uploads.map((row) => [row.name, row.status])).toEqual([
      ['coffee.md', 'done'],
      ['encrypted.pdf', 'failed'],
    ]);
    expect(projects.uploads[0]?.message).toMatch(/^Ready: \d+ tokens, \d+ passages?\.$/);
    // Files are read side by side and listed as each is stored: the order is not fixed.
    const listed = projects.files.map((file) => [file.name, file.status]);
    expect(listed.sort(([a], [b]) => String(a).localeCompare(String(b)))).toEqual([
      ['coffee.md', 'ready'],
      ['encrypted.pdf', 'error'],
    ]);
    expect(projects.embeddingNote).toMatch(/keywords only/);
    expect(projects.isUploading).toBe(false);

    await projects.upload([asFile('corpus/coffee.md', 'text/markdown')]);
    expect(projects.uploads.at(-1)).toMatchObject({ status: 'duplicate', message: 'Already in this project as "coffee.md".' });
    expect(projects.files).toHaveLength(2);
  });

  it('cancels an upload: files not yet read are reported as cancelled and not stored', async () => {
    const { projects } = await createProjects();
    const project = await projects.create('Notes');
    await projects.open(project.id);
    const upload = projects.upload([asFile('corpus/coffee.md', 'text/markdown'), asFile('corpus/router.md', 'text/markdown')]);
    projects.cancelUpload();
    await upload;
    expect(projects.uploads.map((row) => row.status)).toEqual(['cancelled', 'cancelled']);
    expect(projects.files).toEqual([]);
  });

  it('cancels one file from its row and still adds the others', async () => {
    const { projects } = await createProjects();
    const project = await projects.create('Notes');
    await projects.open(project.id);
    const upload = projects.upload([asFile('corpus/coffee.md', 'text/markdown'), asFile('corpus/router.md', 'text/markdown')]);
    const [first] = projects.uploads;
    if (!first) throw new Error('expected a row per file');
    projects.cancelUploadRow(first.key);
    await upload;
    expect(projects.uploads.map((row) => [row.name, row.status])).toEqual([
      ['coffee.md', 'cancelled'],
      ['router.md', 'done'],
    ]);
    expect(projects.files.map((file) => file.name)).toEqual(['router.md']);
    expect(projects.isUploading).toBe(false);
  });

  it('shows each stage of a file on its row: reading, chunking, embedding n of m, then ready', async () => {
    const embedding = createDrivenEmbedding();
    const seen: string[] = [];
    const watched: { projects?: ProjectsState } = {};
    // What the row says after every progress event, as the panel would render it.
    const look = () => {
      const row = watched.projects?.uploads[0];
      const label = row === undefined ? '' : `${row.status}: ${describeUploadRow(row)}`;
      if (seen.at(-1) !== label) seen.push(label);
    };
    const created = await createProjects({
      embedding: embedding.client,
      ingest: (stores) => {
        const ingest = createInlineIngest(stores);
        return { ...ingest, ingestFiles: (projectId, files, onProgress) => ingest.ingestFiles(projectId, files, (progress) => (onProgress(progress), look())) };
      },
    });
    const { projects } = created;
    watched.projects = projects;
    const project = await projects.create('Notes');
    await projects.open(project.id);
    const upload = projects.upload([asFile('corpus/coffee.md', 'text/markdown')]);

    const call = await embedding.nextCall(1);
    const chunks = await created.stores.chunks.listByFile(call.fileId as FileId);
    expect(chunks.length).toBeGreaterThan(0);
    look();
    for (let done = 0; done <= chunks.length; done++) {
      call.onProgress({ kind: 'chunks', fileId: call.fileId as FileId, embedded: done, total: chunks.length });
      look();
    }
    expect(projects.uploads[0]?.fraction).toBe(1);
    call.finish(chunks.length, chunks.length);
    await upload;
    look();

    const passages = chunks.length === 1 ? 'passage' : 'passages';
    expect(seen).toEqual([
      'working: Checking for duplicates',
      'working: Extracting text',
      'working: Counting tokens',
      'working: Chunking',
      'working: Stored',
      'working: Waiting to embed',
      ...Array.from({ length: chunks.length + 1 }, (_, done) => `working: Embedding ${done} of ${chunks.length} ${passages}`),
      expect.stringMatching(new RegExp(`^done: Ready: [\\d,]+ tokens, ${chunks.length} ${passages}\\.$`)),
    ]);
    expect(projects.embedded).toEqual({ embedded: chunks.length, total: chunks.length });
    expect(projects.isUploading).toBe(false);
  });

  it('cancels a file during its embedding: the worker job stops, the file stays, the row says what was embedded', async () => {
    const embedding = createDrivenEmbedding();
    const { projects, stores } = await createProjects({ embedding: embedding.client });
    const project = await projects.create('Notes');
    await projects.open(project.id);
    const upload = projects.upload([asFile('corpus/coffee.md', 'text/markdown'), asFile('corpus/router.md', 'text/markdown')]);

    // One file at a time: the first file's embedding runs, the second waits for its turn.
    const first = await embedding.nextCall(1);
    const firstRow = projects.uploads.find((row) => row.fileId === first.fileId);
    const secondRow = projects.uploads.find((row) => row.fileId !== first.fileId);
    if (!firstRow || !secondRow) throw new Error('expected a row per file');
    first.onProgress({ kind: 'chunks', fileId: first.fileId as FileId, embedded: 1, total: 4 });
    expect(describeUploadRow(projects.uploads.find((row) => row.key === firstRow.key)!)).toBe('Embedding 1 of 4 passages');
    projects.cancelUploadRow(firstRow.key);
    expect(first.isCancelled).toBe(true);

    // The next file's embedding starts once the cancelled one has stopped.
    const second = await embedding.nextCall(2);
    expect(second.fileId).not.toBe(first.fileId);
    second.onProgress({ kind: 'chunks', fileId: second.fileId as FileId, embedded: 0, total: 2 });
    second.finish(2, 2);
    await upload;

    const cancelled = projects.uploads.find((row) => row.key === firstRow.key);
    expect(cancelled?.status).toBe('done');
    expect(cancelled && describeUploadRow(cancelled)).toMatch(/^Ready: [\d,]+ tokens, \d+ passages?\. Embedding cancelled \(1 of 4 embedded\): the rest is found by keyword\.$/);
    expect(projects.uploads.find((row) => row.key === secondRow.key)?.message).toMatch(/^Ready: [\d,]+ tokens, \d+ passages?\.$/);
    // Cancelling the embedding keeps the file: it is listed, and its passages are stored.
    expect(projects.files.map((file) => file.name).sort()).toEqual(['coffee.md', 'router.md']);
    expect((await stores.chunks.listByFile(first.fileId as FileId)).length).toBeGreaterThan(0);
    expect(embedding.calls).toHaveLength(2);
    expect(projects.isUploading).toBe(false);
  });

  it('cancels a file waiting for its turn to embed: its embedding never starts', async () => {
    const embedding = createDrivenEmbedding();
    const { projects } = await createProjects({ embedding: embedding.client });
    const project = await projects.create('Notes');
    await projects.open(project.id);
    const upload = projects.upload([asFile('corpus/coffee.md', 'text/markdown'), asFile('corpus/router.md', 'text/markdown')]);

    const first = await embedding.nextCall(1);
    // Wait until the other file is read and queued behind the first one's embedding.
    const waiting = async () => {
      for (;;) {
        const row = projects.uploads.find((upload) => upload.fileId !== undefined && upload.fileId !== first.fileId);
        if (row?.stage === 'embed') return row;
        await new Promise((wake) => setTimeout(wake, 5));
      }
    };
    const queued = await waiting();
    expect(describeUploadRow(queued)).toBe('Waiting to embed');
    projects.cancelUploadRow(queued.key);
    first.finish(3, 3);
    await upload;

    expect(embedding.calls.map((call) => call.fileId)).toEqual([first.fileId]);
    const settled = projects.uploads.find((row) => row.key === queued.key);
    expect(settled && describeUploadRow(settled)).toMatch(/Embedding cancelled \(none embedded\): the rest is found by keyword\.$/);
    expect(projects.isUploading).toBe(false);
  });

  it('says failed or cancelled on the row of a file that could not be read or was stopped while read', async () => {
    const { projects } = await createProjects();
    const project = await projects.create('Notes');
    await projects.open(project.id);
    const upload = projects.upload([asFile('corpus/coffee.md', 'text/markdown'), asFile('encrypted.pdf', 'application/pdf')]);
    const [first] = projects.uploads;
    if (!first) throw new Error('expected a row per file');
    projects.cancelUploadRow(first.key);
    await upload;
    expect(projects.uploads.map((row) => [row.status, describeUploadRow(row)])).toEqual([
      ['cancelled', 'Cancelled.'],
      ['failed', 'This PDF is protected by a password; remove the password and add it again.'],
    ]);
  });

  it('adds a folder of many files with a few updates of the file list, not one per file', async () => {
    const embedding = createUnavailableEmbedding();
    let modelChecks = 0;
    const { projects, stores } = await createProjects({
      embedding: { ...embedding, isModelAvailable: (settings) => (modelChecks++, embedding.isModelAvailable(settings)) },
    });
    const project = await projects.create('Folder');
    await projects.open(project.id);
    // Each new list the panel is handed: one per update of the list. (A reactive field is an
    // accessor on the class; compiled for the server, as here, a plain field.)
    const lists: unknown[] = [];
    const accessor = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(projects), 'files');
    let current: unknown = projects.files;
    Object.defineProperty(projects, 'files', {
      get: (): unknown => (accessor?.get ? (accessor.get.call(projects) as unknown) : current),
      set: (value: unknown) => {
        lists.push(value);
        if (accessor?.set) accessor.set.call(projects, value);
        else current = value;
      },
    });
    const count = 60;
    const folder = Array.from(
      { length: count },
      (_, index) => new File([`Note ${index}: the kiln at station ${index} fires at ${900 + index} degrees.`], `note-${index}.txt`, { type: 'text/plain' }),
    );
    await projects.upload(folder);

    expect(projects.uploads.every((row) => row.status === 'done')).toBe(true);
    expect(projects.isUploading).toBe(false);
    const stored = await stores.files.listInfoByProject(project.id);
    expect(stored).toHaveLength(count);
    // Listed once each, in the order they were stored (oldest first), as a reload would list them.
    expect(projects.files.map((file) => file.id)).toEqual(stored.map((file) => file.id));
    expect(new Set(projects.files.map((file) => file.name)).size).toBe(count);
    expect(lists.length).toBeGreaterThan(0);
    expect(lists.length).toBeLessThan(count / 4);
    // No embedding model: the first file finds out, the other files of the folder do not ask again.
    expect(modelChecks).toBe(1);
    expect(projects.embeddingNote).toMatch(/keywords only/);
  });

  it('saves renames and instructions, and deletes the project with its files', async () => {
    const { projects, stores, newChat } = await createProjects();
    const project = await projects.create();
    const other = await projects.create('Other');
    await projects.open(project.id);
    await projects.rename('  Launch  ');
    await projects.setInstructions('Be brief.');
    expect(await stores.projects.get(project.id)).toMatchObject({ name: 'Launch', instructions: 'Be brief.' });

    await projects.upload([asFile('corpus/coffee.md', 'text/markdown')]);
    const fileId = projects.files[0]?.id;
    // A new chat about to start in the deleted project starts outside any project instead.
    newChat.projectId = project.id;
    await projects.remove();
    expect(await stores.projects.get(project.id)).toBeUndefined();
    expect(fileId && (await stores.files.get(fileId))).toBeUndefined();
    expect(projects.project).toBeNull();
    expect(newChat.projectId).toBeNull();

    // Deleting another project leaves the new chat's project alone.
    newChat.projectId = project.id;
    await projects.open(other.id);
    await projects.remove();
    expect(newChat.projectId).toBe(project.id);
  });
});

/** The viewer over real stores, with the sync fetch and the download recorded. */
function viewerDeps(
  files: FileStore,
  fetchBytes: FileViewerDeps['fetchBytes'] = () => Promise.resolve({ ok: true }),
): FileViewerDeps & { saved: { name: string; text: Promise<string> }[] } {
  const saved: { name: string; text: Promise<string> }[] = [];
  return { files, fetchBytes, saveFile: (name, blob) => saved.push({ name, text: blob.text() }), saved };
}

function buildRemoteFile(): StoredFile {
  return {
    id: asFileId('synced'),
    projectId: null,
    name: 'minutes.txt',
    mimeType: 'text/plain',
    sizeBytes: 17,
    hash: 'h1',
    blob: new Blob([]),
    isBlobRemote: true,
    status: 'ready',
    text: 'Minutes of the AGM',
    tokenCount: 5,
    createdAt: 1,
    updatedAt: 1,
  };
}

describe('FileViewerState', () => {
  it('downloads a synced file by fetching its original first, then from this device', async () => {
    const stores = await createRagStores();
    await stores.files.put(buildRemoteFile());
    let fetches = 0;
    const deps = viewerDeps(stores.files, async (fileId) => {
      fetches++;
      const file = await stores.files.get(fileId);
      if (file) await stores.files.put({ ...file, blob: new Blob(['the original bytes']), isBlobRemote: false });
      return { ok: true };
    });
    const viewer = new FileViewerState(deps);
    await viewer.open(asFileId('synced'));
    expect(viewer.viewed?.isBlobRemote).toBe(true);
    expect(viewer.viewed?.text).toBe('Minutes of the AGM');

    await viewer.downloadOriginal();
    expect(viewer.viewed?.isBlobRemote).toBe(false);
    expect(viewer.original).toEqual({ isFetching: false, error: null });
    await viewer.downloadOriginal();
    expect(fetches).toBe(1);
    expect(deps.saved.map((file) => file.name)).toEqual(['minutes.txt', 'minutes.txt']);
    expect(await deps.saved[0]?.text).toBe('the original bytes');
  });

  it('shows why the original could not be fetched and downloads nothing', async () => {
    const stores = await createRagStores();
    await stores.files.put(buildRemoteFile());
    const deps = viewerDeps(stores.files, () =>
      Promise.resolve({ ok: false, error: { message: 'Cannot reach the sync server at https://couch.example.' } }),
    );
    const viewer = new FileViewerState(deps);
    await viewer.open(asFileId('synced'));
    await viewer.downloadOriginal();
    expect(viewer.original.error).toMatch(/Cannot reach the sync server/);
    expect(viewer.viewed?.isBlobRemote).toBe(true);
    expect(deps.saved).toEqual([]);
  });

  it('opens a PDF citation at its page with the cited range', async () => {
    const { projects, stores } = await createProjects();
    const project = await projects.create('Reports');
    await projects.open(project.id);
    await projects.upload([asFile('report.pdf', 'application/pdf')]);
    const fileId = projects.files[0]?.id;
    if (!fileId) throw new Error('the PDF was not stored');
    const chunk = (await stores.chunks.listByFile(fileId)).find((c) => c.text.includes('Lisbon'));

    const viewer = new FileViewerState(viewerDeps(stores.files));
    await viewer.openCitation({ number: 1, title: 'report.pdf', fileId, location: chunk?.location ?? '' });

    expect(viewer.viewed?.page).toBe(3);
    expect(viewer.viewed?.pages.map((p) => p.page)).toEqual([1, 2, 3]);
    const range = viewer.viewed?.range;
    expect(range && viewer.viewed?.text.slice(range.charStart, range.charEnd)).toContain('Lisbon office');
  });

  it('says so when the cited file is gone', async () => {
    const { stores } = await createRagStores().then((s) => ({ stores: s }));
    const viewer = new FileViewerState(viewerDeps(stores.files));
    await viewer.openCitation({ number: 1, title: 'gone', fileId: 'missing' as never, location: 'chars 0–5' });
    expect(viewer.viewed).toBeNull();
    expect(viewer.error).toMatch(/no longer stored/);
  });
});

describe('AttachmentsState', () => {
  it('reads a file into an attachment with its text and tokens, then hands it to the send', async () => {
    const stores = await createRagStores();
    let id = 0;
    const attachments = new AttachmentsState({ files: stores.files, loadIngest: () => createInlineIngest(stores), newId: () => `a${++id}` });
    await attachments.add([asFile('corpus/coffee.md', 'text/markdown')]);

    const chip = attachments.chips[0];
    expect(chip).toMatchObject({ status: 'ready', name: 'coffee.md', error: null });
    expect(chip?.attachment).toMatchObject({ kind: 'text', status: 'ready', name: 'coffee.md' });
    expect(chip?.attachment?.text).toContain('Espresso needs a fine grind');
    expect(chip?.attachment?.tokenCount).toBe(stores.tokens.count(chip?.attachment?.text ?? ''));

    expect(attachments.blockReason(SMALL_MODEL)).toBe('');
    const sent = attachments.prepareSend();
    expect(sent.attachments.map((a) => a.name)).toEqual(['coffee.md']);
    // Until the message is stored the file stays attached (a refused send keeps it).
    expect(attachments.chips.map((c) => c.name)).toEqual(['coffee.md']);
    sent.clear();
    expect(attachments.chips).toEqual([]);
  });

  it('stops reading a file whose chip is removed, and stores nothing of it', async () => {
    const stores = await createRagStores();
    let id = 0;
    const attachments = new AttachmentsState({ files: stores.files, loadIngest: () => createInlineIngest(stores), newId: () => `a${++id}` });
    const adding = attachments.add([asFile('corpus/coffee.md', 'text/markdown'), asFile('corpus/router.md', 'text/markdown')]);
    const [first] = attachments.chips;
    if (!first) throw new Error('expected a chip per file');
    attachments.remove(first.key);
    await adding;
    expect(attachments.chips.map((chip) => [chip.name, chip.status])).toEqual([['router.md', 'ready']]);
    const stored = await stores.db.files.toArray();
    expect(stored.map((file) => file.name)).toEqual(['router.md']);
  });

  it('calls an empty file an empty file, with no token count', async () => {
    const stores = await createRagStores();
    const attachments = new AttachmentsState({ files: stores.files, loadIngest: () => createInlineIngest(stores), newId: () => 'a' });
    await attachments.add([new File([], 'notes.txt', { type: 'text/plain' })]);
    expect(attachments.chips).toMatchObject([
      { status: 'failed', attachment: null, error: '"notes.txt" is an empty file: there is nothing to add.' },
    ]);
  });

  it('lets go only of the files that went with the stored message', async () => {
    const stores = await createRagStores();
    let id = 0;
    const attachments = new AttachmentsState({ files: stores.files, loadIngest: () => createInlineIngest(stores), newId: () => `a${++id}` });
    await attachments.add([asFile('corpus/coffee.md', 'text/markdown')]);
    const sent = attachments.prepareSend();
    await attachments.add([new File(['Tide tables for the harbour.'], 'tides.txt', { type: 'text/plain' })]);
    sent.clear();
    expect(attachments.chips.map((c) => c.name)).toEqual(['tides.txt']);
  });

  it('refuses a file larger than the model’s input budget before sending', async () => {
    const stores = await createRagStores();
    const attachments = new AttachmentsState({ files: stores.files, loadIngest: () => createInlineIngest(stores), newId: () => 'a' });
    const text = 'The harbour master logs every ship that enters the port. '.repeat(80);
    await attachments.add([new File([text], 'harbour.txt', { type: 'text/plain' })]);
    // (1,024 − 512 reserved) × 0.95 = 486 tokens.
    expect(attachments.blockReason(SMALL_MODEL)).toMatch(/^The file "harbour.txt" has [\d,]+ tokens, more than this model can take \(486 tokens\)\.$/);
  });
});
