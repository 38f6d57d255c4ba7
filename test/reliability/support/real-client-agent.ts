import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import type { Packet } from '../../../src/core/agent/packets';
import type { Tool } from '../../../src/core/agent/tools/tool';
import type { AssistantMessage, ChatMessageSimple, ProviderConfig } from '../../../src/core/model';
import type { LlmClient } from '../../../src/core/ports';
import { createTokenCounter } from '../../../src/core/tokens';
import { createLlmClient, type LlmClientDeps } from '../../../src/llm';
import { createStores, openCarrelDb, type CarrelDb } from '../../../src/storage';
import type { AgentWorkerApi, WorkerResult, TurnResult } from '../../../src/workers/agent/agent.api';
import { createAgentHost } from '../../../src/workers/agent/agent-host';
import { createMemorySessionLocks } from '../../../src/workers/agent/session-locks';
import { createSteppingClock } from '../../fakes/test-agent';
import { ManualScheduler } from '../../fakes/manual-scheduler';

/**
 * The real agent host over the REAL LLM client (AI SDK, SSE parsing, error mapping) with a stub
 * fetch: what the fault suites drive, since a ScriptedLlmClient would skip the layer under test.
 */
export interface RealClientAgent {
  db: CarrelDb;
  api: AgentWorkerApi;
  provider: ProviderConfig;
  send(text: string, options?: { onPacket?: (packet: Packet, runId: string) => void; sessionId?: string | null }): Promise<SentTurn>;
}

export interface SentTurn {
  result: WorkerResult<TurnResult>;
  packets: Packet[];
  chain: ChatMessageSimple[];
  answer: AssistantMessage | undefined;
}

let counter = 0;

export async function createRealClientAgent(options: {
  provider: ProviderConfig;
  llm?: LlmClient;
  llmDeps?: LlmClientDeps;
  tools?: Tool[];
  db?: CarrelDb;
}): Promise<RealClientAgent> {
  const run = ++counter;
  const db = options.db ?? (await openCarrelDb(`reliability-${run}-${Date.now()}`, { dexie: { indexedDB, IDBKeyRange } }));
  const clock = createSteppingClock();
  let id = 0;
  const ids = { newId: () => `r${run}-${++id}` };
  const llm = options.llm ?? createLlmClient({ sleep: () => Promise.resolve(), ...options.llmDeps });
  const api = createAgentHost({
    db,
    llm,
    tokens: await createTokenCounter(),
    clock,
    scheduler: new ManualScheduler(),
    ids,
    locks: createMemorySessionLocks(),
    shouldGenerateTitles: false,
    ...(options.tools ? { tools: options.tools } : {}),
  });
  const stores = createStores(db, clock, ids);
  await stores.providers.put(options.provider);
  let runCounter = 0;

  return {
    db,
    api,
    provider: options.provider,
    async send(text, sendOptions = {}) {
      const packets: Packet[] = [];
      const runId = `run-${run}-${++runCounter}`;
      const model = options.provider.models[0] ?? 'test-model';
      const result = await api.send(
        runId,
        { sessionId: sendOptions.sessionId ?? null, text, models: [{ providerId: options.provider.id, modelId: model }] },
        (batch) => {
          for (const packet of batch) {
            packets.push(packet);
            sendOptions.onPacket?.(packet, runId);
          }
        },
      );
      if (!result.ok) return { result, packets, chain: [], answer: undefined };
      const session = await stores.sessions.get(result.value.sessionId as never);
      const chain = session?.currentLeafId ? await stores.messages.loadChain(session.currentLeafId) : [];
      const stored = await stores.messages.get(result.value.assistantMessageIds[0] as never);
      return { result, packets, chain, answer: stored?.role === 'assistant' ? stored : undefined };
    },
  };
}

/** The answer's visible text across its steps. */
export function readAnswerText(answer: AssistantMessage | undefined): string {
  return (answer?.steps ?? []).map((step) => step.text).join('');
}
