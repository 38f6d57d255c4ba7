import { createDefaultAgent } from '../../core/agent/default-agent';
import { AgentRequestError, processMessage, type AgentDeps, type AssemblerArgs, type PreparedContext } from '../../core/agent/process-message';
import type { Tool } from '../../core/agent/tools/tool';
import { assembleContext, renderNumberedDocuments } from '../../core/context';
import type { ContextTool } from '../../core/context/types';
import type { toToolDefinition } from '../../core/agent/tools/tool';
import type { Clock, Ids, LlmClient, Scheduler, TokenCounter } from '../../core/ports';
import type { ProviderConfig } from '../../core/model';
import { LlmRequestError } from '../../llm/errors';
import { resolveModelInfo } from '../../llm/model-catalog';
import type { CarrelDb } from '../../storage/db';
import { createSessionCache, createStores, isStorageError } from '../../storage';
import type { AgentWorkerApi, PacketListener, WorkerError } from './agent.api';
import { createPacketBatcher } from './packet-batcher';

/** The settings key of the user's edited system prompt (null: the default). */
export const SYSTEM_PROMPT_SETTING = 'systemPrompt';

export interface AgentHostDeps {
  db: CarrelDb;
  llm: LlmClient;
  tokens: TokenCounter;
  clock: Clock;
  ids: Ids;
  scheduler: Scheduler;
}

/**
 * Builds the agent worker's API over real stores and the LLM client. Kept free of Comlink so
 * it can be driven directly; agent.worker.ts only exposes it.
 */
export function createAgentHost(host: AgentHostDeps): AgentWorkerApi {
  const { sessions, messages, providers, agents, projects, settings } = createStores(host.db, host.clock, host.ids);
  const chainCache = createSessionCache({
    getSession: (id) => sessions.get(id),
    loadChain: (leafId) => messages.loadChain(leafId),
  });
  const runs = new Map<string, AbortController>();
  const runBySession = new Map<string, string>();

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
    // Project files come with the RAG issue; a session without a project has none.
    loadProjectFiles: () => Promise.resolve([]),
    resolveModel: (provider: ProviderConfig, modelId: string) => resolveModelInfo(provider, modelId),
    renderDocuments: (documents) => renderNumberedDocuments(documents),
  } satisfies Omit<AgentDeps, 'prepareContext'>;

  async function send(runId: string, request: unknown, onPackets: PacketListener) {
    const controller = new AbortController();
    runs.set(runId, controller);
    const batcher = createPacketBatcher(onPackets);
    const systemPromptOverride = (await settings.get<string>(SYSTEM_PROMPT_SETTING)) ?? null;
    const deps: AgentDeps = {
      ...baseDeps,
      prepareContext: (args) => prepareContext(args, systemPromptOverride, host),
    };
    try {
      const value = await processMessage(
        request,
        deps,
        (packet) => {
          if (packet.obj.type === 'message_start') runBySession.set(packet.obj.sessionId, runId);
          batcher.push(packet);
        },
        controller.signal,
      );
      return { ok: true as const, value };
    } catch (error) {
      return { ok: false as const, error: toWorkerError(error) };
    } finally {
      batcher.flush();
      runs.delete(runId);
      for (const [sessionId, id] of runBySession) if (id === runId) runBySession.delete(sessionId);
    }
  }

  return {
    send,
    sessionCacheStats: () => Promise.resolve(chainCache.stats()),
    stop(runIdOrSessionId) {
      const runId = runBySession.get(runIdOrSessionId) ?? runIdOrSessionId;
      runs.get(runId)?.abort();
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
  };
}

/** Closes the context engine over one model's turn; the loop calls it once per cycle. */
function prepareContext(args: AssemblerArgs, systemPromptOverride: string | null, host: AgentHostDeps): PreparedContext {
  const agent = args.agent ?? createDefaultAgent(host.clock.now());
  const tools: Tool[] = [];
  const contextTools = (offered: ReturnType<typeof toToolDefinition>[]): ContextTool[] =>
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
    });
    if (!result.ok) return { ok: false, error: { code: result.error.code, message: result.error.message } };
    return {
      ok: true,
      value: {
        messages: result.value.messages.map((m) => m.message),
        nextDocumentNumber: result.value.nextDocumentNumber,
      },
    };
  };
  return { assemble, tools };
}

/** Errors cross the worker boundary as plain `{ code, message }`. */
export function toWorkerError(error: unknown): WorkerError {
  if (error instanceof AgentRequestError) return { code: error.code, message: error.message };
  if (error instanceof LlmRequestError) return { code: error.error.code, message: error.error.message };
  if (isStorageError(error)) return { code: error.code, message: error.message };
  return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
}
