import { proxy, releaseProxy, transfer, wrap, type Remote } from 'comlink';
import type {
  AgentWorkerApi,
  AgentWorkerEntry,
  AssembledContext,
  PreviewContextRequest,
  ConfirmListener,
  PacketListener,
  ProjectSearchRequest,
  ProjectSearchResult,
  SendMessageRequest,
  TurnResult,
  WorkerResult,
} from './agent.api';
import type { ModelInfo } from '../../core/model';
import { SEARCH_CANCELLED } from './search-project-files';

/** The UI side of the agent worker: one worker per tab, reached only through its contract. */
export interface AgentClient {
  send(
    runId: string,
    request: SendMessageRequest,
    onPackets: PacketListener,
    onConfirm?: ConfirmListener,
  ): Promise<WorkerResult<TurnResult>>;
  stop(runIdOrSessionId: string): Promise<void>;
  stopModel(runId: string, modelIndex: number): Promise<void>;
  recoverInterrupted(): Promise<number>;
  listModels(providerId: string): Promise<WorkerResult<ModelInfo[]>>;
  previewContext(request: PreviewContextRequest): Promise<WorkerResult<AssembledContext>>;
  countTokens: AgentWorkerApi['countTokens'];
  testWebSearch: AgentWorkerApi['testWebSearch'];
  testMcpServer: AgentWorkerApi['testMcpServer'];
  compactNow: AgentWorkerApi['compactNow'];
  undoCompaction: AgentWorkerApi['undoCompaction'];
  listSummaries: AgentWorkerApi['listSummaries'];
  /** Searches a project's files; aborting the signal cancels it in the worker (answer `aborted`). */
  searchProject(request: ProjectSearchRequest, signal: AbortSignal): Promise<WorkerResult<ProjectSearchResult>>;
  dispose(): void;
}

export interface AgentClientOptions {
  /** A port on the generation worker: the built-in model's answers are computed there. */
  generationPort?: MessagePort;
}

export function createAgentClient(options: AgentClientOptions = {}): AgentClient {
  const worker = new Worker(new URL('./agent.worker.ts', import.meta.url), { type: 'module', name: 'agent' });
  const api: Remote<AgentWorkerEntry> = wrap<AgentWorkerEntry>(worker);
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
    countTokens: (text) => api.countTokens(text),
    compactNow: (sessionId) => api.compactNow(sessionId),
    undoCompaction: (sessionId) => api.undoCompaction(sessionId),
    listSummaries: (sessionId) => api.listSummaries(sessionId),
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
    dispose() {
      api[releaseProxy]();
      worker.terminate();
    },
  };
}
