import { proxy, transfer } from 'comlink';
import { connect } from '../protocol';
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
  /** A port on the generation worker: the built-in model's answers are computed there. */
  generationPort?: MessagePort;
}

export function createAgentClient(options: AgentClientOptions = {}): AgentClient {
  const { api, dispose } = connect<AgentWorkerEntry>(
    new Worker(new URL('./agent.worker.ts', import.meta.url), { type: 'module', name: 'agent' }),
  );
  if (options.generationPort !== undefined) {
    void api.connectGeneration(transfer(options.generationPort, [options.generationPort]));
  }
  return {
    send: (runId, request, onPackets, onConfirm) =>
      api.send(runId, request, proxy(onPackets), onConfirm ? proxy(onConfirm) : undefined),
    stop: (id) => api.stop(id),
    stopModel: (runId, modelIndex) => api.stopModel(runId, modelIndex),
    recoverInterrupted: () => api.recoverInterrupted(),
    listModels: (providerId) => api.listModels(providerId),
    testWebSearch: (config) => api.testWebSearch(config),
    testMcpServer: (config) => api.testMcpServer(config),
    previewContext: (request) => api.previewContext(request),
    lastRequest: (userMessageId) => api.lastRequest(userMessageId),
    countTokens: (text) => api.countTokens(text),
    countTokensOfEach: (texts) => api.countTokensOfEach(texts),
    compactNow: (sessionId) => api.compactNow(sessionId),
    undoCompaction: (sessionId) => api.undoCompaction(sessionId),
    listSummaries: (sessionId) => api.listSummaries(sessionId),
    // Comlink's types do not keep the call's generic: the reply is the named store call's.
    temporaryChat: <K extends TemporaryChatCall>(call: K, args: Parameters<TemporaryChatCalls[K]>) =>
      api.temporaryChat(call, args) as unknown as ReturnType<TemporaryChatCalls[K]>,
    saveTemporaryChat: (sessionId) => api.saveTemporaryChat(sessionId),
    discardTemporaryChat: (sessionId) => api.discardTemporaryChat(sessionId),
    temporaryChatTitle: (sessionId) => api.temporaryChatTitle(sessionId),
    async searchProject(request, signal) {
      if (signal.aborted) return { ok: false, error: SEARCH_CANCELLED };
      const searchId = crypto.randomUUID();
      // A cancel that cannot reach the worker changes nothing: the caller ignores the answer.
      const cancel = (): void => void api.cancelProjectSearch(searchId).catch(() => undefined);
      signal.addEventListener('abort', cancel, { once: true });
      try {
        return await api.searchProject(searchId, request);
      } finally {
        signal.removeEventListener('abort', cancel);
      }
    },
    dispose,
  };
}
