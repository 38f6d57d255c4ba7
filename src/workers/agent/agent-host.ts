/**
 * The agent worker's API over real stores and the LLM client: wiring only. Turns are assembled
 * and run in core (`core/agent/`); this file hands core its ports (stores, project files,
 * settings, tools) and the run machinery (`runs.ts`). Kept free of Comlink so tests drive it
 * directly; agent.worker.ts only serves it.
 */
import { previewRequestSchema, previewTurn, type TurnPorts } from '../../core/agent/assemble-turn';
import { processMessage, type AgentDeps } from '../../core/agent/process-message';
import { testSearchBackend } from '../../core/agent/tools/search-backends';
import type { Tool } from '../../core/agent/tools/tool';
import { renderNumberedDocuments } from '../../core/context';
import { projectIdSchema, type ProviderConfig, type SessionId } from '../../core/model';
import type { Clock, ConfirmationPort, Embedder, Ids, LlmClient, Scheduler, SettingsStore, TokenCounter } from '../../core/ports';
import { resolveModelInfo } from '../../core/model/model-catalog';
import type { CarrelDb } from '../../storage/db';
import { createStores } from '../../storage';
import { watchTableWrites } from '../../storage/watch-writes';
import { errorText, parseCall } from '../protocol';
import { SEARCH_CANCELLED, type AgentWorkerApi, type WorkerResult } from './agent.api';
import type { RelayChannel } from './answer-relay';
import { createChatHistorySearch, createChatIndexLoader } from './chat-history';
import { createHttpFetcher } from './http-fetcher';
import type { TurnToolKit } from './mcp/web-and-mcp-tools';
import { nameSession } from './name-session';
import { createProjectFiles } from './project-files';
import { recoverStreaming } from './recover-streaming';
import { createChatBackends } from './chat-backends';
import { createCompactionRunner } from './compaction-runner';
import { createRuns } from './runs';
import { searchProjectFiles } from './search-project-files';
import { createSentRequestLog } from './sent-requests';
import { createTemporaryChats } from './temporary-chats';
import type { SessionLocks } from './session-locks';
import { loadTokenCalibration } from './token-calibration';
import { toWorkerError } from './worker-errors';
import { z } from 'zod';

export { closeOrphanedToolCalls } from './recover-streaming';
export { TOKEN_CALIBRATION_SETTING } from './token-calibration';
export { toWorkerError } from './worker-errors';

/** A settings Test button gives up after this long, so a silent server does not spin forever. */
const SETTINGS_TEST_TIMEOUT_MS = 20_000;

/** The settings key of the user's edited system prompt (null: the default). */
export const SYSTEM_PROMPT_SETTING = 'systemPrompt';

export interface AgentHostDeps {
  db: CarrelDb;
  llm: LlmClient;
  tokens: TokenCounter;
  clock: Clock;
  ids: Ids;
  scheduler: Scheduler;
  /** Tools on offer in every turn (read_file, search, web and MCP tools plug in here). */
  tools?: Tool[];
  /** The query embedder for project search; null (keyword search only) without a model. */
  loadQueryEmbedder?: () => Promise<Embedder | null>;
  /** One run per session across tabs; Web Locks in the browser. */
  locks: SessionLocks;
  /**
   * Where runs are relayed to other tabs showing the same chat, and where a tab deleting a chat
   * asks its run to stop: a BroadcastChannel in the browser; left out, runs stay private.
   */
  relay?: RelayChannel;
  /** Ask the model for a title after the first answer (off in most tests). */
  shouldGenerateTitles: boolean;
  /**
   * Loads the turn's configured tools (web search, open_url, MCP servers) once per turn; the
   * worker passes loadTurnToolKit, tests leave it out or pass their own.
   */
  loadTurnTools?: (deps: { settings: SettingsStore; confirmation: ConfirmationPort }, signal: AbortSignal) => Promise<TurnToolKit>;
}

export function createAgentHost(host: AgentHostDeps): AgentWorkerApi {
  const stores = createStores(host.db, host.clock, host.ids);
  const { providers, settings } = stores;
  // Each chat's stores: the database's, or memory for a temporary chat.
  const chats = createChatBackends(stores, host.clock, host.ids);
  const projectFiles = createProjectFiles({
    files: stores.files,
    chunks: stores.chunks,
    searchBlocks: stores.searchBlocks,
    loadEmbedder: host.loadQueryEmbedder ?? (() => Promise.resolve(null)),
    // Keeps each project's index between searches until its files or chunks change.
    watchWrites: (onWrite) => watchTableWrites(host.db, ['files', 'chunks'], onWrite),
  });
  const compaction = createCompactionRunner({ ...host, ...stores, chatStoresFor: (sessionId) => chats.forSession(sessionId) });
  const turnPorts: TurnPorts = {
    agents: stores.agents,
    projects: stores.projects,
    summaries: { listBySession: (sessionId) => chats.forSession(sessionId).summaries.listBySession(sessionId) },
    clock: host.clock,
    tokens: host.tokens,
    projectFiles,
    resolveModel: (provider: ProviderConfig, modelId: string) => resolveModelInfo(provider, modelId),
    loadSystemPrompt: async () => (await settings.get<string>(SYSTEM_PROMPT_SETTING)) ?? null,
    loadCalibration: () => loadTokenCalibration(settings),
    async loadTools(confirmation, signal) {
      const kit = host.loadTurnTools ? await host.loadTurnTools({ settings, confirmation }, signal) : undefined;
      return { toolsFor: (scope) => kit?.createTools(scope) ?? [], warnings: kit?.warnings ?? [] };
    },
    ...(host.tools ? { baseTools: host.tools } : {}),
    chatHistory: createChatHistorySearch({ sessions: stores.sessions, messages: stores.messages, loadIndex: createChatIndexLoader(host.db) }),
  };
  const sentRequests = createSentRequestLog();
  /** Titles being written for temporary chats, by session. */
  const namings = new Map<string, Promise<void>>();
  const recoverDeps = { messages: stores.messages, locks: host.locks, tokens: host.tokens, clock: host.clock };

  const runs = createRuns({
    locks: host.locks,
    relay: host.relay ?? null,
    closeInterrupted: (sessionId) =>
      recoverStreaming({ ...recoverDeps, messages: chats.forSession(sessionId).messages }, { sessionId, isHeldByThisRun: true }),
    async runTurn(request, run) {
      const chat = chats.forRequest({ sessionId: request.sessionId, isTemporary: request.isTemporary });
      const { sessions, messages } = chat;
      const deps: AgentDeps = {
        clock: host.clock,
        ids: host.ids,
        tokens: host.tokens,
        llm: host.llm,
        scheduler: host.scheduler,
        sessions,
        messages,
        providers,
        turn: turnPorts,
        confirmation: run.confirmation,
        loadChain: (session, leafId) => chat.loadChain(session, leafId),
        rememberChain: (session, chain) => chat.rememberChain(session, chain),
        recordUsage: (entry) => chat.usage.record(entry),
        renderDocuments: (documents) => renderNumberedDocuments(documents),
        onRequest: (sent) => sentRequests.record(sent),
      };
      const value = await processMessage(request, deps, run.sink, run.signal, run.modelAborts);
      if (host.shouldGenerateTitles && value.isFirstTurn && value.stopReasons[0] === 'completed') {
        const naming = nameSession(value, request, { llm: host.llm, sessions, messages, providers }).catch((error: unknown) =>
          console.warn('Could not name the chat:', error),
        );
        // A temporary chat's page cannot watch the database for the title: it asks for it here.
        if (chat === chats.temporary) {
          namings.set(value.sessionId, naming);
          void naming.finally(() => {
            if (namings.get(value.sessionId) === naming) namings.delete(value.sessionId);
          });
        }
      }
      // Long chats are summarised after a saved turn, in the background.
      if (value.stopReasons.includes('completed')) {
        void compaction.afterTurn(value.sessionId).catch((error: unknown) => console.warn('Could not compact the chat:', error));
      }
      return value;
    },
  });
  // A chat deleted while it answers (from any tab) stops its run, so nothing writes into it.
  watchTableWrites(host.db, ['sessions'], () => {
    for (const sessionId of runs.sessionIds()) {
      void chats.forSession(sessionId).sessions.get(sessionId as SessionId).then(
        (session) => (session ? undefined : runs.stop(sessionId)),
        () => undefined,
      );
    }
  });
  const temporaryChats = createTemporaryChats({
    chats,
    db: host.db,
    ids: host.ids,
    isRunning: (sessionId) => runs.sessionIds().includes(sessionId),
    stop: (sessionId) => runs.stop(sessionId),
  });
  /** The project screen's searches still running, by the caller's search id. */
  const projectSearches = new Map<string, AbortController>();

  return {
    send: (runId, request, onPackets, onConfirm) => runs.send(runId, request, onPackets, onConfirm),
    compactNow: (sessionId) => asResult(() => compaction.compactNow(sessionId)),
    undoCompaction: (sessionId) => asResult(() => compaction.undo(sessionId)),
    listSummaries: (sessionId) => asResult(() => compaction.list(sessionId)),
    recoverInterrupted: () => recoverStreaming(recoverDeps),
    sessionCacheStats: () => Promise.resolve(chats.saved.cache.stats()),
    stop: (runIdOrSessionId) => Promise.resolve(runs.stop(runIdOrSessionId)),
    stopModel: (runId, modelIndex) => Promise.resolve(runs.stopModel(runId, modelIndex)),
    async testWebSearch(config) {
      const tested = await testSearchBackend(config, createHttpFetcher(), AbortSignal.timeout(SETTINGS_TEST_TIMEOUT_MS));
      return tested.ok ? tested : { ok: false, error: { code: tested.error.code, message: tested.error.message } };
    },
    // The MCP client is fetched on first use (see mcp-connection-pool.ts).
    testMcpServer: (config) =>
      import('./mcp/mcp-client').then(
        (mcp) => mcp.testMcpServer(config, { signal: AbortSignal.timeout(SETTINGS_TEST_TIMEOUT_MS) }),
        (error: unknown) => ({
          ok: false as const,
          error: { code: 'mcp_unreachable', message: `The MCP client could not be loaded: ${errorText(error)}` },
        }),
      ),
    async searchProject(searchId, request) {
      const controller = new AbortController();
      projectSearches.set(searchId, controller);
      try {
        return await searchProjectFiles(request, projectFiles.search, controller.signal);
      } catch (error) {
        return { ok: false, error: controller.signal.aborted ? SEARCH_CANCELLED : toWorkerError(error) };
      } finally {
        if (projectSearches.get(searchId) === controller) projectSearches.delete(searchId);
      }
    },
    cancelProjectSearch(searchId) {
      projectSearches.get(searchId)?.abort();
      return Promise.resolve();
    },
    async prepareProjectSearch(projectId) {
      // Work ahead of a search: an id that does not parse is left for the search to refuse.
      const parsed = projectIdSchema.safeParse(projectId);
      if (parsed.success) await projectFiles.search.prepare(parsed.data);
    },
    async listModels(providerId) {
      try {
        const provider = await providers.get(providerId as ProviderConfig['id']);
        if (!provider) return { ok: false, error: { code: 'not_found', message: 'That provider no longer exists.' } };
        return { ok: true, value: await host.llm.listModels(provider, new AbortController().signal) };
      } catch (error) {
        return { ok: false, error: toWorkerError(error) };
      }
    },
    countTokens(text) {
      const parsed = parseCall(z.string({ error: 'Only text can be counted.' }), text, 'Only text can be counted.');
      return Promise.resolve(parsed.ok ? { ok: true, value: host.tokens.count(parsed.value) } : parsed);
    },
    countTokensOfEach(texts) {
      const message = 'Only a list of texts can be counted.';
      const parsed = parseCall(z.array(z.string({ error: message }), { error: message }), texts, message);
      return Promise.resolve(parsed.ok ? { ok: true, value: parsed.value.map((text) => host.tokens.count(text)) } : parsed);
    },
    async previewContext(request) {
      const parsed = parseCall(previewRequestSchema, request, 'Invalid preview request.');
      if (!parsed.ok) return parsed;
      try {
        const chat = chats.forRequest({ sessionId: parsed.value.sessionId });
        return await previewTurn(parsed.value, { ...turnPorts, sessions: chat.sessions, messages: chat.messages, providers });
      } catch (error) {
        return { ok: false, error: toWorkerError(error) };
      }
    },
    temporaryChat: (call, args) => temporaryChats.call(call, args),
    saveTemporaryChat: (sessionId) => temporaryChats.save(sessionId),
    discardTemporaryChat: (sessionId) => temporaryChats.discard(sessionId),
    async temporaryChatTitle(sessionId) {
      await namings.get(sessionId);
      return (await chats.temporary.sessions.get(sessionId as SessionId))?.title ?? null;
    },
    lastRequest(userMessageId) {
      const sent = sentRequests.get(userMessageId);
      return Promise.resolve(
        sent
          ? { ok: true, value: sent }
          : { ok: false, error: { code: 'not_found', message: 'This question was answered before this page was opened, so its request was not kept here.' } },
      );
    },
  };
}

/** A call's errors as a WorkerResult, as every result call of the contract answers. */
async function asResult<T>(call: () => Promise<T>): Promise<WorkerResult<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error: toWorkerError(error) };
  }
}
