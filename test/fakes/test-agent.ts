import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import type { Packet } from '../../src/core/agent/packets';
import type { Tool } from '../../src/core/agent/tools/tool';
import type { SendMessageRequest, TurnResult } from '../../src/core/agent/process-message';
import { asProviderId, type AssistantMessage, type ChatMessageSimple, type ModelRef, type ProviderConfig } from '../../src/core/model';
import type { Clock, TokenCounter } from '../../src/core/ports';
import { createTokenCounter } from '../../src/core/tokens';
import { openCarrelDb, type CarrelDb } from '../../src/storage/db';
import { createMessageStore } from '../../src/storage/message.store';
import { createProviderStore } from '../../src/storage/provider.store';
import { createSessionStore } from '../../src/storage/session.store';
import type { AgentWorkerApi, WorkerResult } from '../../src/workers/agent/agent.api';
import { createAgentHost, type AgentHostDeps } from '../../src/workers/agent/agent-host';
import { createMemorySessionLocks, type SessionLocks } from '../../src/workers/agent/session-locks';
import { ManualScheduler } from './manual-scheduler';
import { ScriptedLlmClient, type Script } from './scripted-llm-client';

export const TEST_PROVIDER_ID = asProviderId('test-provider');
export const TEST_MODEL: ModelRef = { providerId: TEST_PROVIDER_ID, modelId: 'gpt-4o-mini' };

/** A clock that moves forward by `stepMs` on every read, so checkpoints can be exercised. */
export function createSteppingClock(start = Date.UTC(2026, 10, 21, 10), stepMs = 10): Clock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => (now += stepMs),
    timeZone: () => 'Europe/Paris',
    advance(ms) {
      now += ms;
    },
  };
}

export interface Turn {
  result: WorkerResult<TurnResult>;
  packets: Packet[];
  /** Every stored message of the session's visible chain after the turn. */
  chain: ChatMessageSimple[];
  /** The stored answers of this turn, one per model. */
  answers: AssistantMessage[];
}

let databaseCounter = 0;
let agentCounter = 0;

/**
 * A chainable driver over the real agent host: real stores on fake-indexeddb, the real context
 * engine and token counter, and a ScriptedLlmClient in place of the network.
 */
export class TestAgent {
  readonly llm: ScriptedLlmClient;
  private sessionId: string | null = null;
  private stopAfterPackets: number | undefined;
  private onPacket: ((packet: Packet, api: AgentWorkerApi, runId: string) => void) | undefined;

  private constructor(
    readonly db: CarrelDb,
    readonly api: AgentWorkerApi,
    readonly tokens: TokenCounter,
    readonly clock: ReturnType<typeof createSteppingClock>,
    readonly scheduler: ManualScheduler,
    llm: ScriptedLlmClient,
  ) {
    this.llm = llm;
  }

  static async create(
    options: {
      tools?: Tool[];
      locks?: SessionLocks;
      shouldGenerateTitles?: boolean;
      db?: CarrelDb;
      /** Milliseconds the clock moves on every read (10; 0 freezes it, as on a fast machine). */
      clockStepMs?: number;
      /** Ids (default: a counter, so they sort in the order they were made). */
      newId?: () => string;
      /** The per-turn web/MCP tool loader, as the worker passes loadTurnToolKit. */
      loadTurnTools?: AgentHostDeps['loadTurnTools'];
      /** The project search's query embedder (keyword search only without one). */
      loadQueryEmbedder?: AgentHostDeps['loadQueryEmbedder'];
      /** Where runs are relayed to other tabs. */
      relay?: AgentHostDeps['relay'];
    } = {},
  ): Promise<TestAgent> {
    const db =
      options.db ??
      (await openCarrelDb(`test-agent-${++databaseCounter}-${Date.now()}`, {
        dexie: { indexedDB, IDBKeyRange },
      }));
    const tokens = await createTokenCounter();
    const clock = createSteppingClock(undefined, options.clockStepMs);
    const llm = new ScriptedLlmClient();
    const scheduler = new ManualScheduler();
    let id = 0;
    const idPrefix = `a${++agentCounter}`;
    const api = createAgentHost({
      db,
      llm,
      tokens,
      clock,
      scheduler,
      ids: { newId: options.newId ?? (() => `${idPrefix}-${++id}`) },
      locks: options.locks ?? createMemorySessionLocks(),
      shouldGenerateTitles: options.shouldGenerateTitles ?? false,
      ...(options.tools ? { tools: options.tools } : {}),
      ...(options.loadTurnTools ? { loadTurnTools: options.loadTurnTools } : {}),
      ...(options.loadQueryEmbedder ? { loadQueryEmbedder: options.loadQueryEmbedder } : {}),
      ...(options.relay ? { relay: options.relay } : {}),
    });
    const agent = new TestAgent(db, api, tokens, clock, scheduler, llm);
    await agent.addProvider();
    return agent;
  }

  async addProvider(overrides: Partial<ProviderConfig> = {}): Promise<this> {
    await createProviderStore(this.db).put({
      id: TEST_PROVIDER_ID,
      name: 'Test provider',
      kind: 'openai-compatible',
      preset: 'custom',
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: 'sk-test',
      headers: {},
      models: ['gpt-4o-mini'],
      contextWindowOverrides: {},
      createdAt: 1,
      updatedAt: 1,
      ...overrides,
    });
    return this;
  }

  script(...scripts: Script[]): this {
    this.llm.enqueue(scripts);
    return this;
  }

  scriptFor(modelId: string, ...scripts: Script[]): this {
    this.llm.enqueue(scripts, modelId);
    return this;
  }

  /** Calls stop() on the run once this many packets arrived. */
  stopAfter(packetCount: number): this {
    this.stopAfterPackets = packetCount;
    return this;
  }

  tap(onPacket: (packet: Packet, api: AgentWorkerApi, runId: string) => void): this {
    this.onPacket = onPacket;
    return this;
  }

  async send(text: string, request: Partial<SendMessageRequest> = {}): Promise<Turn> {
    const packets: Packet[] = [];
    const runId = `run-${packets.length}-${this.clock.now()}`;
    const stopAfter = this.stopAfterPackets;
    this.stopAfterPackets = undefined;
    const result = await this.api.send(
      runId,
      { sessionId: this.sessionId, text, models: [TEST_MODEL], ...request },
      (batch) => {
        for (const packet of batch) {
          packets.push(packet);
          this.onPacket?.(packet, this.api, runId);
          if (stopAfter !== undefined && packets.length === stopAfter) void this.api.stop(runId);
        }
      },
    );
    // Batches are delivered on a timer; the end-of-turn packet flushes them, so all are here.
    if (result.ok) this.sessionId = result.value.sessionId;
    const chain = await this.chain();
    const answerIds = result.ok ? result.value.assistantMessageIds : [];
    const messages = createMessageStore(this.db, this.clock);
    const answers = (await Promise.all(answerIds.map((id) => messages.get(id as AssistantMessage['id'])))).filter(
      (m): m is AssistantMessage => m?.role === 'assistant',
    );
    return { result, packets, chain, answers };
  }

  async chain(): Promise<ChatMessageSimple[]> {
    if (!this.sessionId) return [];
    const session = await createSessionStore(this.db, this.clock).get(this.sessionId as never);
    if (!session?.currentLeafId) return [];
    return createMessageStore(this.db, this.clock).loadChain(session.currentLeafId);
  }

  get currentSessionId(): string | null {
    return this.sessionId;
  }
}
