// First: configures libraries before any of them can probe eval() under the CSP.
import './boot/strict-csp';
import { mount } from 'svelte';
import App from './app/App.svelte';
import DatabaseBanner from './app/components/storage/DatabaseBanner.svelte';
import { DatabaseStatus } from './state/shell/database-status.svelte';
import './app/app.css';
import { buildSharedChat } from './core/model';
import { AgentsState } from './state/settings/agents.svelte';
import { PromptsState } from './state/settings/prompts.svelte';
import { AttachmentsState } from './state/chat/attachments.svelte';
import { NewChatProject } from './state/projects/new-chat-project.svelte';
import type { EmbeddingClient } from './workers/embedding/embedding.client';
import { createIngestClient, type IngestClient } from './workers/ingest/ingest.client';
import { ChatSessionState } from './state/chat/chat-session.svelte';
import { createTemporaryChatStores } from './state/chat/chat-stores';
import { ComposerState } from './state/chat/composer.svelte';
import { NoticesState } from './state/shell/notices.svelte';
import { ProvidersState } from './state/settings/providers.svelte';
import { RouterState } from './state/shell/router.svelte';
import { SessionsState } from './state/chat/sessions.svelte';
import { SettingsState } from './state/settings/settings.svelte';
import { StorageSettingsState } from './state/settings/settings-storage.svelte';
import { UsageState } from './state/usage/usage.svelte';
import {
  createAppStores,
  isSyncConfigured,
  observe,
  openCarrelDb,
  recoverUnfinishedImportsOnStart,
  watchImportUnderway,
} from './storage';
import { createSyncClient, type SyncClient } from './workers/sync/sync.client';
import { createAgentClient } from './workers/agent/agent.client';
import { createAnswerFeed, openRelayChannel } from './workers/agent/answer-relay';
import { createGenerationClient } from './workers/generation/generation.client';
import { modelCatalog } from './state/settings/model-catalog.svelte';
import { loadOnce } from './app/lib/load-once';
import { loadMarkdownRenderer } from './app/lib/markdown-loader.svelte';

/** Composition root: builds stores and worker clients, then mounts the app. */
async function start(): Promise<void> {
  const target = document.getElementById('app');
  if (!target) throw new Error('The page has no #app element.');
  const clock = {
    now: () => Date.now(),
    timeZone: () => Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
  const newId = (): string => crypto.randomUUID();
  const notices = new NoticesState();
  // The last line of the funnel: anything no state caught still reaches a toast (never aborts).
  window.addEventListener('unhandledrejection', (event) => notices.report(event.reason));

  const databaseStatus = new DatabaseStatus();
  const db = await openCarrelDb('carrel', {
    // A newer Carrel opened in another tab: this connection is closed; ask for a reload.
    onVersionChange: () => databaseStatus.markOutdated(),
    onBlocked: () => databaseStatus.markBlocked(),
  });
  mount(DatabaseBanner, { target: document.body, props: { status: databaseStatus } });
  // Rows of an import that is writing show as they land: the banner says so, in every tab.
  watchImportUnderway(db, (isUnderway) => databaseStatus.setImportUnderway(isUnderway), (error) => notices.report(error));
  // An import a closed tab cut short is undone before anything is shown (unless another tab
  // is still running it); a failure here is reported, and tried again at the next start.
  await recoverUnfinishedImportsOnStart(db).catch((error: unknown) => notices.report(error));
  const stores = createAppStores(db, clock, { newId });
  // The built-in model runs in its own worker; the agent worker reaches it through a port.
  const generation = createGenerationClient();
  const workerClient = createAgentClient({ generation });
  const router = new RouterState();
  // Answers streaming in other tabs, and stop requests for chats deleted while they answer.
  const answerFeed = createAnswerFeed(
    openRelayChannel(),
    'locks' in navigator ? navigator.locks : null,
  );
  const providers = new ProvidersState(stores.providers, newId, (id) =>
    workerClient.listModels(id),
  );
  const settings = new SettingsState({
    store: stores.settings,
    agent: workerClient,
    root: document.documentElement,
    newId,
  });
  const storage = new StorageSettingsState({
    backup: stores.backup,
    storage: 'storage' in navigator ? navigator.storage : undefined,
    async deleteEverything() {
      await db.transaction('rw', db.tables, async () => {
        for (const table of db.tables) await table.clear();
      });
      // Every state starts over from the empty database.
      location.assign(location.pathname);
    },
    onImported: async () => {
      await Promise.all([providers.load(), settings.load()]);
    },
    saveFile: downloadFile,
    // Import and export code is fetched when someone uses it, not at startup.
    async importChatGpt(text) {
      const { importChatGptExport } = await import('./storage/backup/import-chatgpt');
      // Counted by the agent worker's tokenizer: the page loads no copy of the rank files.
      const countTokens = async (texts: string[]): Promise<number[]> => {
        const counted = await workerClient.countTokensOfEach(texts);
        if (!counted.ok) throw new Error(`Could not count the imported messages' tokens: ${counted.error.message}`);
        return counted.value;
      };
      return importChatGptExport(db, text, { clock, countTokens });
    },
    async renderChat(sessionId, format) {
      const session = await stores.sessions.get(sessionId);
      if (!session) throw new Error('This chat no longer exists.');
      const chain = session.currentLeafId ? await stores.messages.loadChain(session.currentLeafId) : [];
      const slug = (session.title || 'chat').replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '').slice(0, 60) || 'chat';
      if (format === 'markdown') {
        const { renderSessionMarkdown } = await import('./storage/backup/export-markdown');
        return { fileName: `${slug}.md`, text: renderSessionMarkdown(session, chain) };
      }
      const { renderSharedChatPage } = await import('./app/lib/shared-chat-page');
      const shared = buildSharedChat(session, chain, clock.now());
      return { fileName: `${slug}.html`, text: renderSharedChatPage(shared, clock.timeZone()) };
    },
    printPage: printHtmlPage,
    async importSharedChat(text) {
      const { importSharedChat } = await import('./storage/backup/shared-chat');
      return importSharedChat(db, text, { clock, newId });
    },
    now: () => new Date(),
  });
  let detachSearchIndex: (() => void) | null = null;
  const sessions = new SessionsState({
    watchSessions: (onValue, onError) => observe(() => stores.sessions.list(), onValue, onError),
    watchProjects: (onValue, onError) => observe(() => stores.projects.list(), onValue, onError),
    store: stores.sessions,
    notices,
    stopAnswering: (sessionId) => answerFeed.stopSession(sessionId),
    // The inspector's next request changes with a summary: recompute it once the worker is done.
    compaction: {
      compactNow: (sessionId) =>
        workerClient.compactNow(sessionId).finally(() => composer.schedulePreview()),
      undoCompaction: (sessionId) =>
        workerClient.undoCompaction(sessionId).finally(() => composer.schedulePreview()),
    },
    async buildSearchIndex() {
      // Built fresh (the worker writes messages through its own connection), then kept current
      // with this tab's own writes until the session list changes again. MiniSearch is fetched
      // on the first search.
      const { attachSearchIndex, createSearchIndex, indexDatabase } =
        await import('./storage/search-index');
      const index = createSearchIndex();
      detachSearchIndex?.();
      detachSearchIndex = attachSearchIndex(db, index);
      await indexDatabase(db, index);
      return index;
    },
  });
  const agents = new AgentsState({
    store: stores.agents,
    watchAgents: (onValue, onError) => observe(() => stores.agents.list(), onValue, onError),
    notices,
    newId,
    now: clock.now,
  });
  const prompts = new PromptsState({
    store: stores.prompts,
    watchPrompts: (onValue, onError) => observe(() => stores.prompts.list(), onValue, onError),
    notices,
    newId,
    now: clock.now,
  });
  // A temporary chat is kept in the agent worker's memory; the page reaches it through the worker.
  const temporaryChats = createTemporaryChatStores(workerClient);
  /** Where the open chat's rows and files are: the one choice the page's helpers share. */
  const openChatStores = () => (chat.isTemporary ? temporaryChats : stores);
  const composer = new ComposerState({
    agent: workerClient,
    // The open chat's choices go where the chat is kept.
    sessions: { update: (id, patch) => openChatStores().sessions.update(id, patch) },
    notices,
  });
  const chat = new ChatSessionState({
    agent: workerClient,
    sessions: stores.sessions,
    messages: stores.messages,
    temporary: temporaryChats,
    newRunId: newId,
    onSessionCreated: (sessionId) => router.followCreatedSession(sessionId),
    feed: answerFeed,
    watchSession: (sessionId, onValue, onError) =>
      observe(() => stores.sessions.get(sessionId), onValue, onError),
  });
  // Projects, attachments and the file viewer: the ingest and embedding workers start
  // on first use, since most visits never upload a file.
  let ingest: IngestClient | null = null;
  // Adding files is when keeping them starts to matter: ask the browser not to evict them.
  const loadIngest = (): IngestClient => {
    void storage.ensurePersistence();
    return (ingest ??= createIngestClient());
  };
  // Only the project screen and Settings embed: the client's code comes with them.
  const loadEmbeddingStarter = loadOnce(async () => {
    const { createEmbeddingClient } = await import('./workers/embedding/embedding.client');
    let embedding: EmbeddingClient | null = null;
    return (): EmbeddingClient => (embedding ??= createEmbeddingClient());
  });
  const newChatProject = new NewChatProject();
  // The project screen's state and code (uploads, search, embedding) come on first use.
  const loadProjects = loadOnce(async () => {
    const [{ ProjectsState }, loadEmbedding] = await Promise.all([
      import('./state/projects/projects.svelte'),
      loadEmbeddingStarter(),
    ]);
    return new ProjectsState({
      projects: stores.projects,
      files: stores.files,
      settings: stores.settings,
      notices,
      newChat: newChatProject,
      loadIngest,
      loadEmbedding,
      searchProject: (request, signal) => workerClient.searchProject(request, signal),
      prepareSearch: (projectId) => workerClient.prepareProjectSearch(projectId),
      newId,
      now: clock.now,
    });
  });
  // Sync runs in its own worker, started at once when this device syncs, else on first visit
  // to Settings → Sync; the settings' state and form code come with it.
  let syncClient: SyncClient | null = null;
  const loadSync = loadOnce(async () => {
    const { SyncSettingsState } = await import('./state/settings/sync.svelte');
    return new SyncSettingsState({
      loadClient: () => (syncClient ??= createSyncClient()),
      pageProtocol: location.protocol,
    });
  });
  const attachments = new AttachmentsState({
    files: stores.files,
    place: () => ({ isTemporary: chat.isTemporary, files: openChatStores().files }),
    loadIngest,
    newId,
  });
  // The file viewer's state and code come with the first file opened.
  const loadFileViewer = loadOnce(async () => {
    const { FileViewerState } = await import('./state/projects/file-viewer.svelte');
    return new FileViewerState({
      // A temporary chat's attachments open from the worker's memory.
      files: { get: (id) => openChatStores().files.get(id) },
      // The sync worker holds the key the bytes are sealed with.
      fetchBytes: (fileId) => (syncClient ??= createSyncClient()).fetchFileBytes(fileId),
      saveFile: downloadFile,
    });
  });
  // The built-in model's download and settings: the first-use screen and Settings fetch its
  // state and code when they show it.
  const loadBuiltin = loadOnce(async () => {
    const { BuiltinModelState } = await import('./state/settings/builtin-model.svelte');
    return new BuiltinModelState(() => generation, providers);
  });
  // The embedding settings are read when Settings first shows them, with their code.
  const loadEmbeddingSettings = loadOnce(async () => {
    const [{ EmbeddingSettingsState }, loadEmbedding] = await Promise.all([
      import('./state/settings/embedding-settings.svelte'),
      loadEmbeddingStarter(),
    ]);
    const embeddingSettings = new EmbeddingSettingsState({ settings: stores.settings, notices, loadEmbedding });
    await embeddingSettings
      .load()
      .catch((error: unknown) => notices.report(error, 'Could not load the embedding settings'));
    return embeddingSettings;
  });
  // Settings first: the theme applies before the app is drawn.
  await Promise.all([providers.load(), settings.load()]);
  // Answers left streaming by a tab that closed mid-stream are shown as interrupted, with retry.
  void workerClient
    .recoverInterrupted()
    .then((recovered) => (recovered > 0 ? chat.reload() : undefined))
    .catch((error: unknown) => notices.report(error, 'Could not check for interrupted answers'));
  const usage = new UsageState({
    listUsage: () => stores.usage.listSince(0),
    listSessions: () => stores.sessions.list(),
    listProjects: () => stores.projects.list(),
    providers: () => providers.providers,
  });
  mount(App, { target, props: { context: { router, chat, providers, sessions, agents, prompts, composer, notices, settings, storage, newChatProject, loadProjects, attachments, loadFileViewer, loadEmbeddingSettings, loadBuiltin, usage, loadSync } } });
  afterFirstPaint(() => {
    // Service worker, update prompt, install button and offline indicator: their code is
    // fetched now, not with the entry script.
    Promise.all([import('./pwa/start-pwa'), import('./app/components/pwa/PwaControls.svelte')])
      .then(([{ startPwa }, { default: PwaControls }]) => {
        const pwa = startPwa({ isGenerationRunning: () => chat.isRunning });
        mount(PwaControls, {
          target: document.getElementById('app-status') ?? document.body,
          props: { pwa },
        });
      })
      .catch((error: unknown) => notices.report(error, 'Could not start the offline support'));
    // Nearly every visit shows an answer: fetch the Markdown renderer now, not on the first one.
    void loadMarkdownRenderer();
    // Model facts and prices: the composer's size check, answers' costs, the settings.
    modelCatalog.load().catch((error: unknown) => notices.report(error, 'Could not load the model catalogue'));
    void isSyncConfigured(db)
      .then(async (isConfigured) => (isConfigured ? (await loadSync()).load() : undefined))
      .catch((error: unknown) => notices.report(error, 'Could not start sync'));
  });
}

/**
 * Runs work the first screen does not need after the browser has painted it: a timeout queued
 * from an animation frame fires once that frame's paint is done. A tab opened in the background
 * paints no frames, so there the work just waits for the current task to end.
 */
function afterFirstPaint(task: () => void): void {
  if (document.visibilityState === 'hidden') setTimeout(task, 0);
  else requestAnimationFrame(() => setTimeout(task, 0));
}

/**
 * Opens the print dialog on a page of its own (a chat's web page): a hidden frame holds it, so
 * the app's own layout and its list of visible rows do not decide what is printed.
 */
function printHtmlPage(html: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const frame = document.createElement('iframe');
    frame.title = 'Printing';
    frame.setAttribute('aria-hidden', 'true');
    // No scripts in it; same origin only so this page can call its print(), modals for the dialog.
    frame.setAttribute('sandbox', 'allow-same-origin allow-modals');
    frame.style.cssText = 'position: fixed; width: 0; height: 0; border: 0; visibility: hidden;';
    frame.addEventListener('load', () => {
      const view = frame.contentWindow;
      if (!view) {
        frame.remove();
        reject(new Error('The page to print could not be opened.'));
        return;
      }
      // print() returns when the dialog closes; the frame goes once printing no longer needs it.
      view.addEventListener('afterprint', () => setTimeout(() => frame.remove(), 0), { once: true });
      view.print();
      resolve();
    }, { once: true });
    frame.srcdoc = html;
    document.body.append(frame);
  });
}

/** Hands a file to the person through a temporary download link. */
function downloadFile(fileName: string, content: Blob): void {
  const url = URL.createObjectURL(content);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  // The download has started from the URL; revoking at once can cancel it in some browsers.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

start().catch((error: unknown) => {
  console.error(error);
  const target = document.getElementById('app');
  if (target) {
    target.textContent = `Carrel could not start: ${error instanceof Error ? error.message : String(error)}`;
  }
});
