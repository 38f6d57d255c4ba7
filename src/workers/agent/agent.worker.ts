/// <reference lib="webworker" />
import { expose } from 'comlink';
import { createTokenCounter } from '../../core/tokens';
import { createLlmClient } from '../../llm';
import { openCarrelDb } from '../../storage/db';
import type { AgentWorkerApi } from './agent.api';
import { createAgentHost } from './agent-host';

/**
 * The agent worker: the agent loop runs here, off the UI thread, and reaches the UI only
 * through the Comlink contract in agent.api.ts. Set-up is lazy so the first message pays for
 * it once and a failure is reported on the call, not lost at start-up.
 */
let hostPromise: Promise<AgentWorkerApi> | undefined;

function getHost(): Promise<AgentWorkerApi> {
  hostPromise ??= (async () => {
    const [db, tokens] = await Promise.all([openCarrelDb(), createTokenCounter()]);
    return createAgentHost({
      db,
      tokens,
      llm: createLlmClient(),
      clock: { now: () => Date.now(), timeZone: () => Intl.DateTimeFormat().resolvedOptions().timeZone },
      ids: { newId: () => crypto.randomUUID() },
      scheduler: {
        schedule(callback, ms) {
          const timer = setTimeout(callback, ms);
          return () => clearTimeout(timer);
        },
      },
    });
  })();
  hostPromise.catch(() => {
    hostPromise = undefined;
  });
  return hostPromise;
}

const api: AgentWorkerApi = {
  async send(runId, request, onPackets) {
    try {
      return await (await getHost()).send(runId, request, onPackets);
    } catch (error) {
      return { ok: false, error: { code: 'worker_setup', message: error instanceof Error ? error.message : String(error) } };
    }
  },
  async sessionCacheStats() {
    return (await getHost()).sessionCacheStats();
  },
  async stop(id) {
    await (await getHost()).stop(id);
  },
  async listModels(providerId) {
    try {
      return await (await getHost()).listModels(providerId);
    } catch (error) {
      return { ok: false, error: { code: 'worker_setup', message: error instanceof Error ? error.message : String(error) } };
    }
  },
};

expose(api);
