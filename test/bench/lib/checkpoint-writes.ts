/**
 * Bench 4, second part: how often the agent writes the answer while it streams. One real turn
 * through the agent host (real LLM client and SSE parsing, the timer scheduler the worker uses,
 * the real stores over fake-indexeddb) against the mock LLM server streaming at a steady rate;
 * every write to the messages table is timestamped by a Dexie middleware.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import type { DBCore, DBCoreMutateRequest } from 'dexie';
import { asProviderId, bindKey, type ProviderConfig } from '../../../src/core/model';
import type { Scheduler } from '../../../src/core/ports';
import { createTokenCounter } from '../../../src/core/tokens/encoding';
import { createLlmClient } from '../../../src/llm';
import { CarrelDb, createStores } from '../../../src/storage';
import { createAgentHost } from '../../../src/workers/agent/agent-host';
import { createMemorySessionLocks } from '../../../src/workers/agent/session-locks';
import { startMockLlm } from '../../mock-llm/server';

export interface CheckpointWriteFigures {
  streamMs: number;
  deltas: number;
  /** Writes of the answer from its first save up to, not including, the final save. */
  streamingWrites: number;
  /** The most of those in any 1-second window. */
  maxStreamingWritesPerSecond: number;
  /** Every write of the answer, the final save included. */
  answerWrites: number;
  /** The most of all answer writes in any 1-second window. */
  maxAnswerWritesPerSecond: number;
  /** Milliseconds between consecutive answer writes. */
  gapsMs: number[];
}

/** The most timestamps (ascending, ms) that fall in any half-open window of `windowMs`. */
export function maxInWindow(times: readonly number[], windowMs: number): number {
  let best = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while ((times[end] as number) - (times[start] as number) >= windowMs) start++;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

/** As the agent worker schedules: plain timers. */
const timerScheduler: Scheduler = {
  schedule(callback, ms) {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};

export async function measureCheckpointWrites(options: {
  seconds: number;
  deltasPerSecond: number;
  charsPerDelta: number;
}): Promise<CheckpointWriteFigures> {
  const deltas = options.seconds * options.deltasPerSecond;
  const mock = await startMockLlm();
  // Middleware must be in place before the database opens, so this opens it itself.
  const db = new CarrelDb(`checkpoint-bench-${Date.now()}`, { indexedDB, IDBKeyRange });
  const writes: { id: string; at: number; status: unknown }[] = [];
  db.use({
    stack: 'dbcore',
    name: 'time-message-writes',
    create: (down: DBCore): DBCore => ({
      ...down,
      table: (name) => {
        const table = down.table(name);
        if (name !== 'messages') return table;
        return {
          ...table,
          mutate: (request: DBCoreMutateRequest) => {
            if (request.type === 'put' || request.type === 'add') {
              for (const value of request.values as { id: string; status?: unknown }[])
                writes.push({ id: value.id, at: performance.now(), status: value.status });
            }
            return table.mutate(request);
          },
        };
      },
    }),
  });
  try {
    await db.open();
    const clock = { now: () => Date.now(), timeZone: () => 'UTC' };
    let next = 0;
    const ids = { newId: () => `cp-${++next}` };
    const provider: ProviderConfig = {
      id: asProviderId('mock-openai'),
      name: 'Mock OpenAI',
      kind: 'openai',
      preset: 'openai',
      baseUrl: `${mock.url}/v1`,
      // Bound to the mock's origin, as the Settings form binds a typed key: the request layer
      // sends a key only to the origin it was entered for.
      ...bindKey('sk-bench', `${mock.url}/v1`),
      headers: {},
      models: ['gpt-4o-mini'],
      contextWindowOverrides: {},
      createdAt: 1,
      updatedAt: 1,
    };
    await createStores(db, clock, ids).providers.put(provider);
    const text = 'word '.repeat(Math.ceil((deltas * options.charsPerDelta) / 5));
    mock.setScenario({
      kind: 'text',
      text: text.slice(0, deltas * options.charsPerDelta),
      chunkSize: options.charsPerDelta,
      tokensPerSecond: options.deltasPerSecond,
    });
    const host = createAgentHost({
      db,
      llm: createLlmClient(),
      tokens: await createTokenCounter(),
      clock,
      ids,
      scheduler: timerScheduler,
      locks: createMemorySessionLocks(),
      shouldGenerateTitles: false,
    });
    let firstDeltaAt = Number.NaN;
    let lastDeltaAt = Number.NaN;
    let failure: string | undefined;
    const result = await host.send(
      'checkpoint-bench',
      {
        sessionId: null,
        text: 'Tell me a long story.',
        models: [{ providerId: provider.id, modelId: 'gpt-4o-mini' }],
      },
      (packets) => {
        for (const packet of packets) {
          if (packet.obj.type === 'error') failure = packet.obj.message;
          if (packet.obj.type !== 'message_delta') continue;
          lastDeltaAt = performance.now();
          if (Number.isNaN(firstDeltaAt)) firstDeltaAt = lastDeltaAt;
        }
      },
    );
    if (!result.ok) throw new Error(`The streamed turn failed: ${result.error.message}`);
    // A turn that ended in an error streamed nothing: its figures would measure nothing.
    if (failure !== undefined) throw new Error(`The streamed turn ended in an error: ${failure}`);
    if (Number.isNaN(firstDeltaAt)) throw new Error('The streamed turn produced no text.');
    const answerId = result.value.assistantMessageIds[0];
    const answerWrites = writes.filter((write) => write.id === answerId).map((write) => write.at);
    const streamingWrites = answerWrites.slice(0, -1);
    return {
      streamMs: lastDeltaAt - firstDeltaAt,
      deltas,
      streamingWrites: streamingWrites.length,
      maxStreamingWritesPerSecond: maxInWindow(streamingWrites, 1000),
      answerWrites: answerWrites.length,
      maxAnswerWritesPerSecond: maxInWindow(answerWrites, 1000),
      gapsMs: answerWrites
        .slice(1)
        .map((at, index) => Math.round(at - (answerWrites[index] as number))),
    };
  } finally {
    db.close();
    await mock.close();
  }
}
