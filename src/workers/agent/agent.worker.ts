/// <reference lib="webworker" />
// First: configures zod for the strict CSP and logs violations.
import '../../boot/strict-csp';
import { releaseProxy, wrap, type Remote } from 'comlink';
import { createTokenCounter } from '../../core/tokens';
import { createLlmClient } from '../../llm';
import { openCarrelDb } from '../../storage/db';
import { createSettingsStore } from '../../storage/settings.store';
import { ORT_WASM_PATHS } from '../embedding/ort-wasm-paths';
import { createQueryEmbedderLoader } from '../embedding/query-embedder';
import type { GenerationWorkerApi } from '../generation/generation.api';
import { createGenerationLink } from '../generation/generation-link';
import { createLocalLlmClient } from '../generation/local-llm-client';
import { lazyHost, serve, WORKER_CLOCK, WORKER_IDS } from '../protocol';
import { AGENT_CALLS, type AgentWorkerApi, type AgentWorkerEntry } from './agent.api';
import { createAgentHost } from './agent-host';
import { openRelayChannel } from './answer-relay';
import { createMcpConnectionPool } from './mcp/mcp-connection-pool';
import { loadTurnToolKit } from './mcp/web-and-mcp-tools';
import { createMemorySessionLocks, createWebSessionLocks } from './session-locks';

/**
 * The agent worker: the agent loop runs here, off the UI thread, and reaches the UI only
 * through the contract in agent.api.ts.
 */
/** MCP connections live as long as the worker, renewed when a server's settings change. */
const mcpPool = createMcpConnectionPool();
/** The generation worker (the built-in model), once the UI connected it. */
const generation = createGenerationLink<Remote<GenerationWorkerApi>>({
  release: (old) => old[releaseProxy](),
});

const api: AgentWorkerEntry = {
  ...lazyHost<AgentWorkerApi>(AGENT_CALLS, async () => {
    const [db, tokens] = await Promise.all([openCarrelDb(), createTokenCounter()]);
    return createAgentHost({
      // Project search embeds queries with the user's model, from files the app serves itself.
      loadQueryEmbedder: createQueryEmbedderLoader(createSettingsStore(db, WORKER_CLOCK), { wasmPaths: ORT_WASM_PATHS }),
      db,
      tokens,
      // HTML error pages (a proxy's 413, a gateway's 502) are shown as their text; the page
      // reader (linkedom and Readability) is fetched when a first response fails.
      llm: createLlmClient({
        loadReadableText: async () => (await import('./readable-text')).createPageTextExtractor(),
        local: createLocalLlmClient(
          () => generation.current(),
          undefined,
          (failed, signal) => generation.renew(failed, signal),
        ),
      }),
      clock: WORKER_CLOCK,
      ids: WORKER_IDS,
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
  }),
  connectGeneration(port, renew) {
    // `renew` calls back into the page; a page already gone answers nothing to wait for.
    generation.connect(wrap<GenerationWorkerApi>(port), () => {
      void Promise.resolve(renew()).catch(() => undefined);
    });
  },
};

serve(api);
