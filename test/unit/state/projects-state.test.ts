import { describe, expect, it } from 'vitest';
import type { ModelInfo } from '../../../src/core/model';
import { AttachmentsState } from '../../../src/state/attachments.svelte';
import { NoticesState } from '../../../src/state/notices.svelte';
import { FileViewerState } from '../../../src/state/file-viewer.svelte';
import { ProjectsState } from '../../../src/state/projects.svelte';
import type { EmbeddingClient } from '../../../src/workers/embedding/embedding.client';
import { createInlineIngest, createRagStores, fixtureInput } from '../workers/rag-stores';


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

async function createProjects() {
  const stores = await createRagStores();
  let id = 0;
  const projects = new ProjectsState({
    projects: stores.projects,
    files: stores.files,
    settings: stores.settings,
    notices: new NoticesState(),
    loadIngest: () => createInlineIngest(stores),
    loadEmbedding: createUnavailableEmbedding,
    // The search box has its own tests (project-search-state.test.ts).
    searchProject: () => Promise.reject(new Error('not searched in these tests')),
    newId: () => `id-${++id}`,
    now: () => 1_000,
  });
  return { stores, projects };
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
  it('uploads files with one settled row each, lists them, and reports a duplicate', async () => {
    const { projects } = await createProjects();
    const project = await projects.create('Notes');
    await projects.open(project.id);
    await projects.upload([asFile('corpus/coffee.md', 'text/markdown'), asFile('encrypted.pdf', 'application/pdf')]);

    expect(projects.uploads.map((row) => [row.name, row.status])).toEqual([
      ['coffee.md', 'done'],
      ['encrypted.pdf', 'failed'],
    ]);
    expect(projects.uploads[0]?.message).toMatch(/^\d+ tokens, \d+ passages?\.$/);
    expect(projects.files.map((file) => [file.name, file.status])).toEqual([
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

  it('saves renames and instructions, and deletes the project with its files', async () => {
    const { projects, stores } = await createProjects();
    const project = await projects.create();
    await projects.open(project.id);
    await projects.rename('  Launch  ');
    await projects.setInstructions('Be brief.');
    expect(await stores.projects.get(project.id)).toMatchObject({ name: 'Launch', instructions: 'Be brief.' });

    await projects.upload([asFile('corpus/coffee.md', 'text/markdown')]);
    const fileId = projects.files[0]?.id;
    await projects.remove();
    expect(await stores.projects.get(project.id)).toBeUndefined();
    expect(fileId && (await stores.files.get(fileId))).toBeUndefined();
    expect(projects.project).toBeNull();
  });
});

describe('FileViewerState', () => {
  it('opens a PDF citation at its page with the cited range', async () => {
    const { projects, stores } = await createProjects();
    const project = await projects.create('Reports');
    await projects.open(project.id);
    await projects.upload([asFile('report.pdf', 'application/pdf')]);
    const fileId = projects.files[0]?.id;
    if (!fileId) throw new Error('the PDF was not stored');
    const chunk = (await stores.chunks.listByFile(fileId)).find((c) => c.text.includes('Lisbon'));

    const viewer = new FileViewerState({ files: stores.files });
    await viewer.openCitation({ number: 1, title: 'report.pdf', fileId, location: chunk?.location ?? '' });

    expect(viewer.viewed?.page).toBe(3);
    expect(viewer.viewed?.pages.map((p) => p.page)).toEqual([1, 2, 3]);
    const range = viewer.viewed?.range;
    expect(range && viewer.viewed?.text.slice(range.charStart, range.charEnd)).toContain('Lisbon office');
  });

  it('says so when the cited file is gone', async () => {
    const { stores } = await createRagStores().then((s) => ({ stores: s }));
    const viewer = new FileViewerState({ files: stores.files });
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
