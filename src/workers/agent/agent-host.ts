import { createDefaultAgent } from '../../core/agent/default-agent';
import { generateTitle } from '../../core/agent/generate-title';
import { AgentRequestError, fallbackTitle, ModelAborts, processMessage, type AgentDeps, type AssemblerArgs, type PreparedContext } from '../../core/agent/process-message';
import type { Tool } from '../../core/agent/tools/tool';
import { assembleContext, decideProjectMode, renderNumberedDocuments } from '../../core/context';
import type { AssembledContext, ContextTool } from '../../core/context/types';
import type { Clock, ConfirmationPort, Embedder, Ids, LlmClient, Scheduler, SettingsStore, TokenCounter } from '../../core/ports';
import type { AssistantMessage, ChatSummary, Citation, MessageId, ProviderConfig, SessionId, ToolDefinition, Usage } from '../../core/model';
import { NEUTRAL_CALIBRATION_FACTOR, updateCalibrationFactor } from '../../core/tokens';
import { z } from 'zod';
import { LlmRequestError } from '../../llm/errors';
import { resolveModelInfo } from '../../llm/model-catalog';
import type { CarrelDb } from '../../storage/db';
import { createSessionCache, createStores, isStorageError } from '../../storage';
import { watchTableWrites } from '../../storage/watch-writes';
import type {
  AgentWorkerApi,
  ConfirmListener,
  PacketListener,
  SendMessageRequest,
  TurnResult,
  WorkerError,
  WorkerResult,
} from './agent.api';
import type { TurnToolKit } from './mcp/turn-tools';
import { selectProjectTools } from '../../core/agent/tools/project-tools';
import { createProjectSearch } from '../embedding/project-search';
import { loadProjectFiles } from '../ingest/load-project-files';
import { createProjectFileReader } from '../ingest/project-file-reader';
import type { SessionLocks } from './session-locks';
import { createAnswerRelay, type RelayChannel } from './answer-relay';
import { createPacketBatcher } from './packet-batcher';
import { testSearchBackend } from '../../core/agent/tools/search-backends';
import { createHttpFetcher } from './http-fetcher';
import { testMcpServer } from './mcp/mcp-client';
import { previewContext } from './preview-context';
import { createCompactionRunner } from './compaction-runner';
import { SEARCH_CANCELLED, searchProjectFiles } from './search-project-files';

/** A settings Test button gives up after this long, so a silent server does not spin forever. */
const SETTINGS_TEST_TIMEOUT_MS = 20_000;

/** A title is a nicety: a slow provider must not hold a request open for long. */
const TITLE_TIMEOUT_MS = 20_000;

/** Settings key of the learned token calibration factors, by provider and model. */
export const TOKEN_CALIBRATION_SETTING = 'tokenCalibration';
const calibrationSchema = z.record(z.string(), z.number().positive());
const countTokensRequestSchema = z.string();
const calibrationKey = (providerId: string, modelId: string): string => `${providerId}/${modelId}`;

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

/** Without a person to ask (no UI callback), a risky tool call is refused. */
const REFUSE_ALL: ConfirmationPort = { requestConfirmation: () => Promise.resolve(false) };

const SESSION_BUSY: WorkerError = {
  code: 'session_busy',
  message: 'This chat is answering in another tab. Wait for it to finish there, or stop it there.',
};
const INTERRUPTED_ERROR = { code: 'interrupted', message: 'The answer was cut off when the page closed.' };

/**
 * Builds the agent worker's API over real stores and the LLM client. Kept free of Comlink so
 * it can be driven directly; agent.worker.ts only exposes it.
 */
export function createAgentHost(host: AgentHostDeps): AgentWorkerApi {
  const { sessions, messages, providers, agents, projects, settings, files, chunks, usage, summaries } = createStores(
    host.db,
    host.clock,
    host.ids,
  );
  const projectSearch = createProjectSearch({
    files,
    chunks,
    loadEmbedder: host.loadQueryEmbedder ?? (() => Promise.resolve(null)),
    // Keeps each project's index between searches until its files or chunks change.
    watchWrites: (onWrite) => watchTableWrites(host.db, ['files', 'chunks'], onWrite),
  });
  const fileReader = createProjectFileReader(files);
  const compaction = createCompactionRunner({ ...host, sessions, messages, agents, providers, settings, summaries });
  /** The project screen's searches still running, by the caller's search id. */
  const projectSearches = new Map<string, AbortController>();

  async function loadCalibration(): Promise<Record<string, number>> {
    const parsed = calibrationSchema.safeParse((await settings.get(TOKEN_CALIBRATION_SETTING)) ?? {});
    return parsed.success ? { ...parsed.data } : {};
  }

  /** Moves the model's factor toward what the provider reported, and keeps it for next time. */
  function learnCalibration(map: Record<string, number>, key: string, estimated: number, usage: Usage): void {
    const current = map[key] ?? NEUTRAL_CALIBRATION_FACTOR;
    const next = updateCalibrationFactor(current, estimated, usage.inputTokens);
    if (next === current) return;
    map[key] = next;
    // Merge with what other tabs learned meanwhile; a lost update only slows the learning.
    void loadCalibration()
      .then((stored) => settings.set(TOKEN_CALIBRATION_SETTING, { ...stored, [key]: next }))
      .catch((error: unknown) => console.warn('Could not save the token calibration:', error));
  }

  /** Every tool one model's turn offers: the host's own, the project's, web and MCP. */
  function collectTools(args: AssemblerArgs, kit: TurnToolKit | undefined): Tool[] {
    if (!args.model.hasTools) return [];
    // read_file only makes sense when there are files: a project, or attachments in the chain.
    const hasFiles =
      args.project !== null || args.chain.some((m) => m.role === 'user' && m.attachments.length > 0);
    const mode = args.project ? decideProjectMode(args.projectFiles, args.model) : null;
    const projectTools = hasFiles
      ? selectProjectTools({ projectId: args.project?.id ?? null, mode, search: projectSearch, reader: fileReader })
      : [];
    const turnTools = kit ? kit.createTools({ agent: args.agent, chain: args.chain }) : [];
    return [...(host.tools ?? []), ...projectTools, ...turnTools];
  }
  const chainCache = createSessionCache({
    getSession: (id) => sessions.get(id),
    loadChain: (leafId) => messages.loadChain(leafId),
  });
  const runs = new Map<string, AbortController>();
  const modelAbortsByRun = new Map<string, ModelAborts>();
  const runBySession = new Map<string, string>();
  const stopSession = (runIdOrSessionId: string): void => {
    runs.get(runBySession.get(runIdOrSessionId) ?? runIdOrSessionId)?.abort();
  };
  const relay = host.relay ? createAnswerRelay(host.relay, stopSession) : null;
  // A chat deleted while it answers (from any tab) stops its run, so nothing writes into it.
  watchTableWrites(host.db, ['sessions'], () => {
    for (const sessionId of runBySession.keys()) {
      void sessions.get(sessionId as SessionId).then(
        (session) => (session ? undefined : stopSession(sessionId)),
        () => undefined,
      );
    }
  });

  const baseDeps = {
    clock: host.clock,
    ids: host.ids,
    tokens: host.tokens,
    llm: host.llm,
    scheduler: host.scheduler,
    sessions,
    messages,
    providers,
    agents,
    projects,
    async loadChain(session, leafId) {
      if (leafId === null) return [];
      // The visible chain is the common case and the cached one; another branch point walks.
      if (leafId === session.currentLeafId) return [...(await chainCache.loadVisibleChain(session.id))];
      return messages.loadChain(leafId);
    },
    rememberChain: (session, chain) => chainCache.prime(session, chain),
    recordUsage: (entry) => usage.record(entry),
    // Project files come with the RAG issue; a session without a project has none.
    loadProjectFiles: (project) => loadProjectFiles(files, project.id),
    resolveModel: (provider: ProviderConfig, modelId: string) => resolveModelInfo(provider, modelId),
    renderDocuments: (documents) => renderNumberedDocuments(documents),
  } satisfies Omit<AgentDeps, 'prepareContext'>;

  async function send(
    runId: string,
    request: SendMessageRequest,
    onPackets: PacketListener,
    onConfirm?: ConfirmListener,
  ): Promise<WorkerResult<TurnResult>> {
    // An existing session is locked before anything is written; a new one as soon as it exists.
    const releases: Array<() => void> = [];
    if (typeof request.sessionId === 'string') {
      const release = await host.locks.tryAcquire(request.sessionId);
      if (!release) return { ok: false, error: SESSION_BUSY };
      releases.push(release);
    }
    const controller = new AbortController();
    runs.set(runId, controller);
    const modelAborts = new ModelAborts();
    modelAbortsByRun.set(runId, modelAborts);
    const batcher = createPacketBatcher((packets) => {
      onPackets(packets);
      relay?.publish(runId, packets);
    });
    let failedSessionId: string | null = null;
    try {
      const systemPromptOverride = (await settings.get<string>(SYSTEM_PROMPT_SETTING)) ?? null;
      const calibration = await loadCalibration();
      const sessionSummaries = typeof request.sessionId === 'string' ? await summaries.listBySession(request.sessionId as SessionId) : [];
      const confirmation: ConfirmationPort = onConfirm ? { requestConfirmation: (r) => onConfirm(r) } : REFUSE_ALL;
      const kit = host.loadTurnTools ? await host.loadTurnTools({ settings, confirmation }, controller.signal) : undefined;
      const deps: AgentDeps = {
        ...baseDeps,
        prepareContext: (args) => {
          const key = calibrationKey(args.provider.id, args.model.id);
          // Only models whose tokenizer we lack need correcting (the catch-all encoding).
          const isCalibrated = args.model.encoding === 'default';
          return prepareContext(args, systemPromptOverride, host, collectTools(args, kit), {
            calibrationFactor: isCalibrated ? (calibration[key] ?? NEUTRAL_CALIBRATION_FACTOR) : NEUTRAL_CALIBRATION_FACTOR,
            summaries: sessionSummaries,
            ...(isCalibrated
              ? { onStepUsage: (estimated: number, usage: Usage) => learnCalibration(calibration, key, estimated, usage) }
              : {}),
          });
        },
      };
      const value = await processMessage(
        request,
        deps,
        (packet) => {
          if (packet.obj.type === 'message_start' && !runBySession.has(packet.obj.sessionId)) {
            runBySession.set(packet.obj.sessionId, runId);
            if (releases.length === 0) {
              void host.locks.tryAcquire(packet.obj.sessionId).then((release) => {
                if (release) releases.push(release);
              });
            }
          }
          batcher.push(packet);
        },
        controller.signal,
        modelAborts,
      );
      if (host.shouldGenerateTitles && value.isFirstTurn && value.stopReasons[0] === 'completed') {
        void nameSession(value, request).catch((error: unknown) => console.warn('Could not name the chat:', error));
      }
      // Long chats are summarised after a saved turn, in the background (compaction).
      if (value.stopReasons.includes('completed')) {
        void compaction.afterTurn(value.sessionId).catch((error: unknown) => console.warn('Could not compact the chat:', error));
      }
      return { ok: true as const, value };
    } catch (error) {
      failedSessionId = [...runBySession].find(([, id]) => id === runId)?.[0] ?? request.sessionId;
      return { ok: false as const, error: toWorkerError(error) };
    } finally {
      batcher.flush();
      runs.delete(runId);
      modelAbortsByRun.delete(runId);
      for (const [sessionId, id] of runBySession) if (id === runId) runBySession.delete(sessionId);
      // A failed final save (storage full or failing) leaves the answer at its last checkpoint,
      // still marked streaming: close it as interrupted while this run still holds the session
      // (if storage lets us; otherwise the next start's recovery does it).
      if (failedSessionId) {
        await recoverStreaming({ sessionId: failedSessionId, isHeldByThisRun: true }).catch((error: unknown) =>
          console.warn('Could not close the interrupted answer:', error),
        );
      }
      // Before the lock is free: a tab that sees it free without this reads the run as cut off.
      relay?.end(runId);
      for (const release of releases) release();
    }
  }

  /** Marks answers left streaming as interrupted (one session, or all), unless a run holds it. */
  async function recoverStreaming(scope: { sessionId?: string; isHeldByThisRun?: boolean } = {}): Promise<number> {
    let recovered = 0;
    for (const message of await messages.listStreaming()) {
      if (message.role !== 'assistant') continue;
      if (scope.sessionId !== undefined && message.sessionId !== scope.sessionId) continue;
      if (scope.isHeldByThisRun !== true && (await host.locks.isHeld(message.sessionId))) continue;
      await messages.put({
        ...message,
        steps: closeOrphanedToolCalls(message.steps, host.tokens),
        status: 'interrupted',
        stopReason: 'interrupted',
        error: message.error ?? INTERRUPTED_ERROR,
        updatedAt: host.clock.now(),
      });
      recovered++;
    }
    return recovered;
  }

  /** A model-written title replaces the first words of the question, unless renamed meanwhile. */
  async function nameSession(turn: TurnResult, request: SendMessageRequest): Promise<void> {
    const [model] = request.models;
    const answerId = turn.assistantMessageIds[0];
    if (!model || !answerId) return;
    const provider = await providers.get(model.providerId as ProviderConfig['id']);
    if (!provider) return;
    const chain = await messages.loadChain(answerId as MessageId);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), TITLE_TIMEOUT_MS);
    try {
      const title = await generateTitle(chain, host.llm, provider, model.modelId, controller.signal);
      const session = await sessions.get(turn.sessionId as SessionId);
      const question = chain[0];
      if (!title || !session || question?.role !== 'user' || session.title !== fallbackTitle(question.text)) return;
      await sessions.update(session.id, { title });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs a compaction call, its errors as a WorkerResult. */
  async function compactionCall<T>(call: () => Promise<T>): Promise<WorkerResult<T>> {
    try {
      return { ok: true, value: await call() };
    } catch (error) {
      return { ok: false, error: toWorkerError(error) };
    }
  }

  return {
    send,
    compactNow: (sessionId) => compactionCall(() => compaction.compactNow(sessionId)),
    undoCompaction: (sessionId) => compactionCall(() => compaction.undo(sessionId)),
    listSummaries: (sessionId) => compactionCall(() => compaction.list(sessionId)),
    recoverInterrupted: () => recoverStreaming(),
    sessionCacheStats: () => Promise.resolve(chainCache.stats()),
    stop(runIdOrSessionId) {
      stopSession(runIdOrSessionId);
      return Promise.resolve();
    },
    stopModel(runId, modelIndex) {
      modelAbortsByRun.get(runId)?.stopModel(modelIndex);
      return Promise.resolve();
    },
    async testWebSearch(config) {
      const tested = await testSearchBackend(config, createHttpFetcher(), AbortSignal.timeout(SETTINGS_TEST_TIMEOUT_MS));
      return tested.ok ? tested : { ok: false, error: { code: tested.error.code, message: tested.error.message } };
    },
    testMcpServer: (config) => testMcpServer(config, { signal: AbortSignal.timeout(SETTINGS_TEST_TIMEOUT_MS) }),
    async searchProject(searchId, request) {
      const controller = new AbortController();
      projectSearches.set(searchId, controller);
      try {
        return await searchProjectFiles(request, { search: projectSearch }, controller.signal);
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
    async listModels(providerId) {
      const controller = new AbortController();
      try {
        const provider = await providers.get(providerId as ProviderConfig['id']);
        if (!provider) return { ok: false, error: { code: 'not_found', message: 'That provider no longer exists.' } };
        return { ok: true, value: await host.llm.listModels(provider, controller.signal) };
      } catch (error) {
        return { ok: false, error: toWorkerError(error) };
      }
    },
    countTokens(text) {
      const parsed = countTokensRequestSchema.safeParse(text);
      if (!parsed.success) return Promise.resolve({ ok: false, error: { code: 'invalid_request', message: 'Only text can be counted.' } });
      return Promise.resolve({ ok: true, value: host.tokens.count(parsed.data) });
    },
    async previewContext(request) {
      try {
        return await previewContext(request, {
          ...baseDeps,
          // The same system prompt and tools a real turn would get; risky tools are never run here.
          async prepare(args, onAssembled) {
            const systemPromptOverride = (await settings.get<string>(SYSTEM_PROMPT_SETTING)) ?? null;
            const signal = new AbortController().signal;
            const kit = host.loadTurnTools ? await host.loadTurnTools({ settings, confirmation: REFUSE_ALL }, signal) : undefined;
            const calibration = await loadCalibration();
            const sessionId = args.chain[0]?.sessionId;
            return prepareContext(args, systemPromptOverride, host, collectTools(args, kit), {
              summaries: sessionId ? await summaries.listBySession(sessionId) : [],
              calibrationFactor:
                args.model.encoding === 'default'
                  ? (calibration[calibrationKey(args.provider.id, args.model.id)] ?? NEUTRAL_CALIBRATION_FACTOR)
                  : NEUTRAL_CALIBRATION_FACTOR,
              onAssembled,
            });
          },
        });
      } catch (error) {
        return { ok: false, error: toWorkerError(error) };
      }
    },
  };
}

/** Closes the context engine over one model's turn; the loop calls it once per cycle. */
interface PrepareOptions {
  /** The model's learned correction of our token estimates (1 when nothing was learned). */
  calibrationFactor: number;
  onStepUsage?: PreparedContext['onStepUsage'];
  onAssembled?: (context: AssembledContext) => void;
  /** The session's stored summaries (compaction): the branch's active one stands in the history. */
  summaries?: readonly ChatSummary[];
}

function prepareContext(
  args: AssemblerArgs,
  systemPromptOverride: string | null,
  host: AgentHostDeps,
  tools: Tool[],
  options: PrepareOptions,
): PreparedContext {
  const { calibrationFactor, onAssembled } = options;
  const agent = args.agent ?? createDefaultAgent(host.clock.now());
  const contextTools = (offered: ToolDefinition[]): ContextTool[] =>
    offered.map((definition) => {
      const tool = tools.find((t) => t.name === definition.name);
      return { ...definition, ...(tool ? { usage: tool.usage, isSearch: tool.isSearch } : {}) };
    });
  const assemble: PreparedContext['assemble'] = (cycle) => {
    const result = assembleContext({
      chain: args.chain,
      turnSteps: cycle.turnSteps,
      agent,
      project: args.project ? { project: args.project, files: args.projectFiles } : null,
      systemPromptOverride,
      tools: contextTools(cycle.tools),
      hasSearchRunInTurn: cycle.hasSearchRun,
      isLastCycle: cycle.isLastCycle,
      model: args.model,
      providerKind: args.provider.kind,
      clock: host.clock,
      tokenCounter: host.tokens,
      calibrationFactor,
      summaries: options.summaries ?? [],
    });
    if (!result.ok) return { ok: false, error: { code: result.error.code, message: result.error.message } };
    onAssembled?.(result.value);
    return {
      ok: true,
      value: {
        messages: result.value.messages.map((m) => m.message),
        // Undo the calibration: the factor is learned from raw estimates.
        estimatedInputTokens: (result.value.totalTokens + result.value.budget.toolTokens) / calibrationFactor,
        nextDocumentNumber: result.value.nextDocumentNumber,
      },
    };
  };
  // Inline project files are documents 1..n in file order (context engine, rule 5).
  const isInline = args.project !== null && decideProjectMode(args.projectFiles, args.model) === 'inline';
  const documents: Citation[] = isInline
    ? args.projectFiles.map((file, i) => ({ number: i + 1, title: file.name, fileId: file.id }))
    : [];
  return { assemble, tools, documents, ...(options.onStepUsage ? { onStepUsage: options.onStepUsage } : {}) };
}

/** What a tool call left running by a closed tab or killed worker reads as after recovery. */
const ORPHANED_TOOL_RESULT = 'The tool call was cut off when the page closed, before it returned.';

/**
 * Tool calls still `pending` in an interrupted answer never get a result: mark them cancelled
 * with one, so the UI stops showing them as running and history holds no orphan.
 */
export function closeOrphanedToolCalls(steps: AssistantMessage['steps'], tokens: TokenCounter): AssistantMessage['steps'] {
  return steps.map((step) => ({
    ...step,
    toolCalls: step.toolCalls.map((call) =>
      call.status === 'pending' || call.result === undefined
        ? {
            ...call,
            status: 'cancelled' as const,
            result: { content: ORPHANED_TOOL_RESULT, tokenCount: tokens.count(ORPHANED_TOOL_RESULT), isError: true },
          }
        : call,
    ),
  }));
}

/** Errors cross the worker boundary as plain `{ code, message }`. */
export function toWorkerError(error: unknown): WorkerError {
  if (error instanceof AgentRequestError) return { code: error.code, message: error.message };
  if (error instanceof LlmRequestError) return { code: error.error.code, message: error.error.message };
  if (isStorageError(error)) return { code: error.code, message: error.message };
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}
