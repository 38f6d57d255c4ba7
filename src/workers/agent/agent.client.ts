import { proxy, transfer, type Remote } from 'comlink';
import type { GenerationClient } from '../generation/generation.client';
import { connectRenewing } from '../protocol';
import {
  SEARCH_CANCELLED,
  type AgentWorkerApi,
  type AgentWorkerEntry,
  type ProjectSearchRequest,
  type ProjectSearchResult,
  type TemporaryChatCall,
  type TemporaryChatCalls,
  type WorkerResult,
} from './agent.api';

/**
 * The UI side of the agent worker (one per tab): the contract as it is, except that a project
 * search is cancelled with an AbortSignal rather than by id, the benchmark's cache statistics
 * stay inside, and the worker can be ended.
 */
export interface AgentClient extends Omit<AgentWorkerApi, 'searchProject' | 'cancelProjectSearch' | 'sessionCacheStats'> {
  /** Searches a project's files; aborting the signal cancels it in the worker (answer `aborted`). */
  searchProject(request: ProjectSearchRequest, signal: AbortSignal): Promise<WorkerResult<ProjectSearchResult>>;
  dispose(): void;
}

export interface AgentClientOptions {
  /**
   * The generation worker, where the built-in model's answers are computed: each agent worker
   * started gets a port on it, and a new one when the generation worker is replaced.
   */
  generation?: Pick<GenerationClient, 'openPort' | 'onRestart' | 'renew'>;
}

export function createAgentClient(options: AgentClientOptions = {}): AgentClient {
  const { generation } = options;
  const connectGeneration = (api: Remote<AgentWorkerEntry>): void => {
    if (!generation) return;
    const port = generation.openPort();
    void api.connectGeneration(
      transfer(port, [port]),
      proxy(() => generation.renew()),
    );
  };
  // A worker whose set-up failed is replaced (see connectRenewing); each new one is handed
  // its own port on the generation worker.
  const worker = connectRenewing<AgentWorkerEntry>(
    () => new Worker(new URL('./agent.worker.ts', import.meta.url), { type: 'module', name: 'agent' }),
    connectGeneration,
  );
  const { call } = worker;
  const stopFollowingGeneration = generation?.onRestart(() => void call(connectGeneration));
  return {
    send: (runId, request, onPackets, onConfirm) =>
      call((api) => api.send(runId, request, proxy(onPackets), onConfirm ? proxy(onConfirm) : undefined)),
    stop: (id) => call((api) => api.stop(id)),
    stopModel: (runId, modelIndex) => call((api) => api.stopModel(runId, modelIndex)),
    recoverInterrupted: () => call((api) => api.recoverInterrupted()),
    listModels: (providerId) => call((api) => api.listModels(providerId)),
    testWebSearch: (config) => call((api) => api.testWebSearch(config)),
    testMcpServer: (config) => call((api) => api.testMcpServer(config)),
    previewContext: (request) => call((api) => api.previewContext(request)),
    lastRequest: (userMessageId) => call((api) => api.lastRequest(userMessageId)),
    countTokens: (text) => call((api) => api.countTokens(text)),
    countTokensOfEach: (texts) => call((api) => api.countTokensOfEach(texts)),
    compactNow: (sessionId) => call((api) => api.compactNow(sessionId)),
    undoCompaction: (sessionId) => call((api) => api.undoCompaction(sessionId)),
    listSummaries: (sessionId) => call((api) => api.listSummaries(sessionId)),
    // Comlink's types do not keep the call's generic: the reply is the named store call's.
    temporaryChat: <K extends TemporaryChatCall>(name: K, args: Parameters<TemporaryChatCalls[K]>) =>
      call((api) => api.temporaryChat(name, args)) as unknown as ReturnType<TemporaryChatCalls[K]>,
    saveTemporaryChat: (sessionId) => call((api) => api.saveTemporaryChat(sessionId)),
    discardTemporaryChat: (sessionId) => call((api) => api.discardTemporaryChat(sessionId)),
    temporaryChatTitle: (sessionId) => call((api) => api.temporaryChatTitle(sessionId)),
    prepareProjectSearch: (projectId) => call((api) => api.prepareProjectSearch(projectId)),
    async searchProject(request, signal) {
      if (signal.aborted) return { ok: false, error: SEARCH_CANCELLED };
      const searchId = crypto.randomUUID();
      // A cancel that cannot reach the worker changes nothing: the caller ignores the answer.
      const cancel = (): void => void call((api) => api.cancelProjectSearch(searchId)).catch(() => undefined);
      signal.addEventListener('abort', cancel, { once: true });
      try {
        return await call((api) => api.searchProject(searchId, request));
      } finally {
        signal.removeEventListener('abort', cancel);
      }
    },
    dispose() {
      stopFollowingGeneration?.();
      worker.dispose();
    },
  };
}
