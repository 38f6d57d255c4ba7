/// <reference lib="webworker" />
// First: configures zod for the strict CSP and logs violations (src/pwa, issue 10).
import '../../pwa/strict-csp';
import { expose, wrap, type Remote } from 'comlink';
import { createTokenCounter } from '../../core/tokens';
import { createLlmClient } from '../../llm';
import { openCarrelDb } from '../../storage/db';
import type { AgentWorkerApi, AgentWorkerEntry } from './agent.api';
import type { GenerationWorkerApi } from '../generation/generation.api';
import { createLocalLlmClient } from '../generation/local-llm-client';
import { createSettingsStore } from '../../storage/settings.store';
import { ORT_WASM_PATHS } from '../embedding/ort-wasm-paths';
import { createQueryEmbedderLoader } from '../embedding/query-embedder';
import { createAgentHost } from './agent-host';
import { createMcpConnectionPool } from './mcp/mcp-connection-pool';
import { loadTurnToolKit } from './mcp/turn-tools';
import { createPageTextExtractor } from './readable-text';
import { createMemorySessionLocks, createWebSessionLocks } from './session-locks';
import { openRelayChannel } from './answer-relay';

/**
 * The agent worker: the agent loop runs here, off the UI thread, and reaches the UI only
 * through the Comlink contract in agent.api.ts. Set-up is lazy so the first message pays for
 * it once and a failure is reported on the call, not lost at start-up.
 */
let hostPromise: Promise<AgentWorkerApi> | undefined;
const clock = { now: () => Date.now(), timeZone: () => Intl.DateTimeFormat().resolvedOptions().timeZone };
/** MCP connections live as long as the worker, renewed when a server's settings change. */
const mcpPool = createMcpConnectionPool();
/** The generation worker (the built-in model), once the UI connected it. */
let generation: Remote<GenerationWorkerApi> | null = null;

function getHost(): Promise<AgentWorkerApi> {
  hostPromise ??= (async () => {
    const [db, tokens] = await Promise.all([openCarrelDb(), createTokenCounter()]);
    return createAgentHost({
      // Project search embeds queries with the user's model, from files the app serves itself.
      loadQueryEmbedder: createQueryEmbedderLoader(createSettingsStore(db, clock), { wasmPaths: ORT_WASM_PATHS }),
      db,
      tokens,
      // HTML error pages (a proxy's 413, a gateway's 502) are shown as their text.
      llm: createLlmClient({
        readableText: createPageTextExtractor(),
        local: createLocalLlmClient(() => generation),
      }),
      clock,
      ids: { newId: () => crypto.randomUUID() },
      locks: navigator.locks ? createWebSessionLocks(navigator.locks) : createMemorySessionLocks(),
      relay: openRelayChannel(),
      shouldGenerateTitles: true,
      loadTurnTools: (deps, signal) => loadTurnToolKit({ ...deps, mcpPool }, signal),
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

const api: AgentWorkerEntry = {
  connectGeneration(port) {
    generation = wrap<GenerationWorkerApi>(port);
  },
  async send(runId, request, onPackets, onConfirm) {
    try {
      return await (await getHost()).send(runId, request, onPackets, onConfirm);
    } catch (error) {
      return { ok: false, error: { code: 'worker_setup', message: error instanceof Error ? error.message : String(error) } };
    }
  },
  async recoverInterrupted() {
    return (await getHost()).recoverInterrupted();
  },
  async sessionCacheStats() {
    return (await getHost()).sessionCacheStats();
  },
  async stop(id) {
    await (await getHost()).stop(id);
  },
  async stopModel(runId, modelIndex) {
    await (await getHost()).stopModel(runId, modelIndex);
  },
  async listModels(providerId) {
    try {
      return await (await getHost()).listModels(providerId);
    } catch (error) {
      return { ok: false, error: { code: 'worker_setup', message: error instanceof Error ? error.message : String(error) } };
    }
  },
  async countTokens(text) {
    try {
      return await (await getHost()).countTokens(text);
    } catch (error) {
      return { ok: false, error: { code: 'worker_setup', message: error instanceof Error ? error.message : String(error) } };
    }
  },
  async previewContext(request) {
    try {
      return await (await getHost()).previewContext(request);
    } catch (error) {
      return { ok: false, error: { code: 'worker_setup', message: error instanceof Error ? error.message : String(error) } };
    }
  },
  async searchProject(searchId, request) {
    try {
      return await (await getHost()).searchProject(searchId, request);
    } catch (error) {
      return { ok: false, error: { code: 'worker_setup', message: error instanceof Error ? error.message : String(error) } };
    }
  },
  async cancelProjectSearch(searchId) {
    await (await getHost()).cancelProjectSearch(searchId);
  },
  async testWebSearch(config) {
    return (await getHost()).testWebSearch(config);
  },
  async testMcpServer(config) {
    return (await getHost()).testMcpServer(config);
  },
  async compactNow(sessionId) {
    return (await getHost()).compactNow(sessionId);
  },
  async undoCompaction(sessionId) {
    return (await getHost()).undoCompaction(sessionId);
  },
  async listSummaries(sessionId) {
    return (await getHost()).listSummaries(sessionId);
  },
};

expose(api);
