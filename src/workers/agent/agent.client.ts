import { proxy, releaseProxy, wrap, type Remote } from 'comlink';
import type { AgentWorkerApi, PacketListener, SendMessageRequest, TurnResult, WorkerResult } from './agent.api';
import type { ModelInfo } from '../../core/model';

/** The UI side of the agent worker: one worker per tab, reached only through its contract. */
export interface AgentClient {
  send(runId: string, request: SendMessageRequest, onPackets: PacketListener): Promise<WorkerResult<TurnResult>>;
  stop(runIdOrSessionId: string): Promise<void>;
  listModels(providerId: string): Promise<WorkerResult<ModelInfo[]>>;
  dispose(): void;
}

export function createAgentClient(): AgentClient {
  const worker = new Worker(new URL('./agent.worker.ts', import.meta.url), { type: 'module', name: 'agent' });
  const api: Remote<AgentWorkerApi> = wrap<AgentWorkerApi>(worker);
  return {
    send: (runId, request, onPackets) => api.send(runId, request, proxy(onPackets)),
    stop: (id) => api.stop(id),
    listModels: (providerId) => api.listModels(providerId),
    dispose() {
      api[releaseProxy]();
      worker.terminate();
    },
  };
}
