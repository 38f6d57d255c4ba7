import { asFileId, asProjectId, type AgentId, type FileId, type ModelRef, type Project, type ProjectFile, type ProjectId } from '../../core/model';
import type { FileInfo, FileStore, ProjectStore, SettingsStore, StoredFile } from '../../core/ports';
import { readEmbeddingSettings, type EmbeddingClient } from '../../workers/embedding/embedding.client';
import type { IngestClient, IngestJob } from '../../workers/ingest/ingest.client';
import type { NoticesState } from '../shell/notices.svelte';
import { ModelDownload } from '../settings/model-download';
import { ProjectSearchState, type ProjectSearchDeps } from './project-search.svelte';
import { settleUploadRow, type UploadEmbedding, type UploadRow } from './upload-rows';
import { type EmbeddedCount } from './project-fit';
import type { NewChatProject } from './new-chat-project.svelte';
import { compareByCreation } from '../../util/compare';

export interface ProjectsDeps {
  projects: ProjectStore;
  files: FileStore;
  settings: SettingsStore;
  notices: NoticesState;
  /** The project a new chat starts in: a deleted project stops being it. */
  newChat: NewChatProject;
  /** Workers start on first use: most visits never upload a file. */
  loadIngest(): IngestClient;
  loadEmbedding(): EmbeddingClient;
  /** The agent worker's search of a project's files (the screen's search box). */
  searchProject: ProjectSearchDeps['search'];
  /**
   * Reads a project's search index and loads the embedding model ahead of its first search,
   * while the person types (the agent worker's prepareProjectSearch); its failure is the
   * search's to report.
   */
  prepareSearch?: (projectId: ProjectId) => Promise<void>;
  newId(): string;
  now(): number;
}

/** Whether one upload's files found the embedding model missing (shared by the batch). */
interface EmbeddingModelCheck {
  isUnavailable: boolean;
}

/** A project file as the panel lists it: metadata only, never the blob or the text. */
export type ProjectFileRow = ProjectFile & { createdAt: number };

/** The file list is brought up to date at most this often while files are stored. */
export const FILE_LIST_INTERVAL_MS = 250;

/** New projects are named this until renamed (the name field is focused at once). */
export const NEW_PROJECT_NAME = 'New project';

/**
 * The open project: its settings, its files and uploads in progress, and whether its passages
 * carry embeddings. The upload list's rows are settled by the pure helpers in project-fit.ts.
 */
export class ProjectsState {
  project = $state<Project | null>(null);
  /** Replaced whole, never changed in place: a list of thousands of files holds no deep proxies. */
  files = $state.raw<ProjectFileRow[]>([]);
  uploads = $state<UploadRow[]>([]);
  embedded = $state<EmbeddedCount | null>(null);
  /** Why the passages have no embeddings (model unavailable, downloads off); null when fine. */
  embeddingNote = $state<string | null>(null);
  /** The search box over the open project's files. */
  readonly search: ProjectSearchState;
  /** How to stop each upload row's current work (reading, then embedding), by row key. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping, never rendered
  private readonly cancels = new Map<string, () => void>();
  /**
   * Rows the person cancelled while they still worked: a file waiting for its turn to be
   * embedded has no job to stop yet, and must not start one.
   */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping, never rendered
  private readonly cancelledRows = new Set<string>();
  /** Embedding runs one file at a time: the tail of that queue. */
  private embedding: Promise<void> = Promise.resolve();
  private openToken = 0;
  /**
   * The upload list's rows by key, and how many still work: a progress step or a settled file
   * finds its row at once, however long the list (a folder of thousands of files).
   */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- an index of the rows, never rendered
  private readonly rowsByKey = new Map<string, UploadRow>();
  private workingRows = $state(0);
  /** Files stored or changed that the list shows at its next update, and when that update is done. */
  private fileListUpdate: { ids: Set<FileId>; applied: Promise<void> } | null = null;
  private fileListTail: Promise<void> = Promise.resolve();
  private fileListUpdatedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: ProjectsDeps) {
    this.search = new ProjectSearchState({ search: deps.searchProject });
  }

  /** Some file is still being read or embedded. */
  get isUploading(): boolean {
    return this.workingRows > 0;
  }

  async create(name = NEW_PROJECT_NAME): Promise<Project> {
    const now = this.deps.now();
    const project: Project = {
      id: asProjectId(this.deps.newId()),
      name,
      instructions: '',
      defaultModel: null,
      defaultAgentId: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.projects.put(project);
    return project;
  }

  async open(projectId: ProjectId): Promise<void> {
    const token = ++this.openToken;
    if (this.project?.id !== projectId) {
      this.setUploads([]);
      this.embedded = null;
      this.embeddingNote = null;
      this.search.reset();
    }
    const project = (await this.deps.projects.get(projectId)) ?? null;
    if (token !== this.openToken) return;
    this.project = project;
    if (project) void this.deps.prepareSearch?.(project.id).catch(() => undefined);
    await this.reloadFiles();
  }

  async rename(name: string): Promise<void> {
    const trimmed = name.trim();
    if (trimmed === '' || trimmed === this.project?.name) return;
    await this.update({ name: trimmed });
  }

  async setInstructions(instructions: string): Promise<void> {
    if (instructions === this.project?.instructions) return;
    await this.update({ instructions });
  }

  async setDefaultModel(model: ModelRef | null): Promise<void> {
    await this.update({ defaultModel: model ? { providerId: model.providerId, modelId: model.modelId } : null });
  }

  async setDefaultAgent(agentId: AgentId | null): Promise<void> {
    await this.update({ defaultAgentId: agentId });
  }

  /** Deletes the project with its files and passages; its chats stay, as ordinary chats. */
  async remove(): Promise<void> {
    const project = this.project;
    if (!project) return;
    this.cancelUpload();
    await this.deps.projects.delete(project.id);
    if (this.deps.newChat.projectId === project.id) this.deps.newChat.projectId = null;
    this.project = null;
    this.files = [];
    this.setUploads([]);
    this.search.reset();
  }

  /**
   * Reads the files side by side, each with its own bar and its own cancel: a file's row settles
   * as soon as that file is done, and each stored file is then embedded (one at a time, in the
   * background; the files are searchable by keyword already).
   */
  async upload(files: readonly File[]): Promise<void> {
    const project = this.project;
    if (!project || files.length === 0) return;
    const batch = `${this.deps.newId()}:`;
    const keys = files.map((_, index) => `${batch}${index}`);
    // Once one file of the batch finds no embedding model, the others do not ask again.
    const modelCheck: EmbeddingModelCheck = { isUnavailable: false };
    this.setUploads([
      ...this.uploads.filter((row) => row.status === 'working'),
      ...files.map((file, index) => ({
        key: keys[index] ?? '',
        name: file.name,
        stage: 'hash' as const,
        fraction: 0,
        status: 'working' as const,
        message: null,
      })),
    ]);
    let job: IngestJob;
    try {
      job = this.deps.loadIngest().ingestFiles(
        project.id,
        files.map((file) => ({ name: file.name, mimeType: file.type, blob: file })),
        (progress) => {
          this.patchUpload(`${batch}${progress.key}`, {
            stage: progress.stage,
            fraction: progress.fraction,
            ...(progress.fileId ? { fileId: progress.fileId } : {}),
          });
          if (progress.stage === 'done' && progress.fileId) void this.refreshFile(progress.fileId);
        },
      );
    } catch (error) {
      this.failUploads(keys, error);
      return;
    }
    await Promise.all(
      job.files.map(async (fileJob, index) => {
        const key = keys[index] ?? '';
        this.cancels.set(key, () => fileJob.cancel());
        try {
          const outcome = await fileJob.result;
          const fileId = 'fileId' in outcome ? outcome.fileId : this.rowsByKey.get(key)?.fileId;
          if (fileId) await this.refreshFile(asFileId(fileId));
          let embedding: UploadEmbedding = { kind: 'not_embedded' };
          if (outcome.kind === 'stored' && outcome.status === 'ready' && outcome.chunkCount > 0) {
            this.patchUpload(key, { stage: 'embed', fraction: 0 });
            embedding = await this.queueEmbedding(key, outcome.fileId, modelCheck);
          }
          this.settleRow(key, (row) => settleUploadRow(row, outcome, embedding));
        } catch (error) {
          this.failUploads([key], error);
        } finally {
          this.cancels.delete(key);
          this.cancelledRows.delete(key);
        }
      }),
    );
  }

  /** Stops every file still being read or embedded. */
  cancelUpload(): void {
    for (const row of this.uploads) this.cancelUploadRow(row.key);
  }

  /** Stops one file: its reading, or its embedding once it is stored (or waits for it). */
  cancelUploadRow(key: string): void {
    if (this.rowsByKey.get(key)?.status !== 'working') return;
    this.cancelledRows.add(key);
    this.cancels.get(key)?.();
  }

  private failUploads(keys: readonly string[], error: unknown): void {
    for (const key of keys) {
      this.settleRow(key, (row) => ({ ...row, status: 'failed', stage: 'failed', message: describe(error) }));
    }
    this.deps.notices.report(error, 'Could not add the files');
  }

  /** A new upload list: the index of its rows and the count of working ones follow it. */
  private setUploads(rows: UploadRow[]): void {
    this.uploads = rows;
    this.rowsByKey.clear();
    let working = 0;
    // The stored rows are the list's own (reactive) objects: changing one redraws that row alone.
    for (const row of this.uploads) {
      this.rowsByKey.set(row.key, row);
      if (row.status === 'working') working++;
    }
    this.workingRows = working;
  }

  /** A working row takes what became of its file, in place: the rest of the list stays as it is. */
  private settleRow(key: string, settle: (row: UploadRow) => UploadRow): void {
    const row = this.rowsByKey.get(key);
    if (row?.status !== 'working') return;
    Object.assign(row, settle({ ...row }));
    if (row.status !== 'working') this.workingRows--;
  }

  /** Deletes a file; one still being read or embedded is stopped first. */
  async deleteFile(fileId: FileId): Promise<void> {
    for (const row of this.uploads) if (row.fileId === fileId) this.cancelUploadRow(row.key);
    await this.deps.notices.guard('Could not delete the file', () => this.deps.files.delete(fileId));
    await this.reloadFiles();
  }

  /** Read for the file viewer (offline: everything is in IndexedDB). */
  getFile(fileId: FileId): Promise<StoredFile | undefined> {
    return this.deps.files.get(fileId);
  }

  /** Embeds one stored file after the ones queued before it; its row shows the progress. */
  private queueEmbedding(key: string, fileId: FileId, modelCheck: EmbeddingModelCheck): Promise<UploadEmbedding> {
    const run = this.embedding.then(() => this.embedFile(key, fileId, modelCheck));
    this.embedding = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async embedFile(key: string, fileId: FileId, modelCheck: EmbeddingModelCheck): Promise<UploadEmbedding> {
    const row = () => this.rowsByKey.get(key);
    const cancelled = (): UploadEmbedding => ({ kind: 'cancelled', passages: row()?.passages ?? null });
    if (this.cancelledRows.has(key)) return cancelled();
    if (!this.project || row()?.status !== 'working' || modelCheck.isUnavailable) return { kind: 'not_embedded' };
    const settings = await readEmbeddingSettings(this.deps.settings);
    const embedding = this.deps.loadEmbedding();
    if (!(await embedding.isModelAvailable(settings))) {
      modelCheck.isUnavailable = true;
      this.embeddingNote =
        'No embedding model is available (downloads are off and none is cached or imported): search uses keywords only.';
      return { kind: 'not_embedded' };
    }
    // A cancel while the settings and the model were checked: nothing was started.
    if (this.cancelledRows.has(key)) return cancelled();
    const download = new ModelDownload();
    const job = embedding.embedFile(fileId, settings, (progress) => {
      if (progress.kind === 'chunks' && progress.total > 0) {
        this.patchUpload(key, {
          stage: 'embed',
          fraction: progress.embedded / progress.total,
          passages: { embedded: progress.embedded, total: progress.total },
        });
      } else if (progress.kind === 'model') {
        this.patchUpload(key, { stage: 'model', fraction: download.update(progress.progress).fraction ?? 0 });
      }
    });
    this.cancels.set(key, () => job.cancel());
    const result = await job.result;
    if (!result.ok && result.error.code !== 'cancelled') {
      this.embeddingNote = `${result.error.message} Search uses keywords only.`;
    }
    await this.refreshEmbedded();
    if (result.ok) return { kind: 'embedded' };
    return result.error.code === 'cancelled' ? cancelled() : { kind: 'not_embedded' };
  }

  private async refreshEmbedded(): Promise<void> {
    const project = this.project;
    if (!project) return;
    try {
      const settings = await readEmbeddingSettings(this.deps.settings);
      this.embedded = await this.deps.loadEmbedding().countEmbedded(project.id, settings);
    } catch (error) {
      this.deps.notices.report(error, 'Could not count the embedded passages');
    }
  }

  private async reloadFiles(): Promise<void> {
    const project = this.project;
    if (!project) {
      this.files = [];
      return;
    }
    const stored = await this.deps.files.listInfoByProject(project.id);
    if (this.project?.id !== project.id) return;
    this.files = stored.map(toFileRow);
  }

  /**
   * Lists one file as stored now (or drops it once deleted), with the other files stored or
   * changed meanwhile: the list is brought up to date at most every FILE_LIST_INTERVAL_MS. While a
   * folder of thousands of files is read, each update of the list (and of the fit above it) costs
   * a pass over every listed file, so one per file would grow with the square of their number.
   * Resolves once the file's row is as stored.
   */
  private refreshFile(fileId: FileId): Promise<void> {
    if (this.fileListUpdate === null) {
      // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping, never rendered
      const update = { ids: new Set<FileId>(), applied: Promise.resolve() };
      update.applied = this.fileListTail.then(async () => {
        const wait = this.fileListUpdatedAt + FILE_LIST_INTERVAL_MS - performance.now();
        if (wait > 0) await new Promise((resume) => setTimeout(resume, wait));
        // Files stored from here on wait for the next update.
        this.fileListUpdate = null;
        this.fileListUpdatedAt = performance.now();
        await this.applyFileRows(update.ids);
      });
      this.fileListTail = update.applied.catch(() => undefined);
      this.fileListUpdate = update;
    }
    this.fileListUpdate.ids.add(fileId);
    return this.fileListUpdate.applied;
  }

  /** Reads these files' rows and puts them in the list, oldest first, in one new list. */
  private async applyFileRows(ids: ReadonlySet<FileId>): Promise<void> {
    const project = this.project;
    if (!project) return;
    const stored = await Promise.all([...ids].map((id) => this.deps.files.getInfo(id)));
    if (this.project?.id !== project.id) return;
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- local to this update
    const rows = new Map<FileId, ProjectFileRow | null>();
    [...ids].forEach((id, index) => {
      const info = stored[index];
      rows.set(id, info === undefined || info.projectId !== project.id ? null : toFileRow(info));
    });
    const kept: ProjectFileRow[] = [];
    for (const file of this.files) {
      const row = rows.get(file.id);
      if (row === undefined) kept.push(file);
      else if (row !== null) kept.push(row);
      rows.delete(file.id);
    }
    const added = [...rows.values()].filter((row) => row !== null).sort(compareByCreation);
    this.files = added.length === 0 ? kept : mergeByCreation(kept, added);
  }

  /** Progress on one row changes that row alone: the other rows (a thousand files) stay as they are. */
  private patchUpload(key: string, patch: Partial<UploadRow>): void {
    const row = this.rowsByKey.get(key);
    if (row?.status === 'working') Object.assign(row, patch);
  }

  private async update(patch: Partial<Omit<Project, 'id' | 'createdAt'>>): Promise<void> {
    const project = this.project;
    if (!project) return;
    const next: Project = { ...$state.snapshot(project), ...patch, updatedAt: this.deps.now() };
    this.project = next;
    await this.deps.notices.guard('Could not save the project', () => this.deps.projects.put(next));
  }

  /** Starts a loaded project's passage count (the panel calls it when opened). */
  async loadEmbeddedCount(): Promise<void> {
    if (this.files.length > 0) await this.refreshEmbedded();
  }
}

/** Two lists each in creation order (oldest first, ids breaking ties, as storage lists them), as one. */
function mergeByCreation(older: readonly ProjectFileRow[], newer: readonly ProjectFileRow[]): ProjectFileRow[] {
  const merged: ProjectFileRow[] = [];
  let at = 0;
  for (const file of older) {
    while (at < newer.length && compareByCreation(newer[at] as ProjectFileRow, file) < 0) merged.push(newer[at++] as ProjectFileRow);
    merged.push(file);
  }
  while (at < newer.length) merged.push(newer[at++] as ProjectFileRow);
  return merged;
}

function toFileRow(file: FileInfo): ProjectFileRow {
  return {
    id: file.id,
    name: file.name,
    mimeType: file.mimeType,
    sizeBytes: file.sizeBytes,
    status: file.status,
    tokenCount: file.tokenCount,
    ...(file.error === undefined ? {} : { error: file.error }),
    createdAt: file.createdAt,
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
