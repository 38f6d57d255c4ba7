import { compactChat, chooseSummariserRef, undoCompaction } from '../../core/agent/compact-chat';
import { createDefaultAgent } from '../../core/agent/default-agent';
import { modelRefSchema, type ChatSummary, type ModelRef, type SessionId } from '../../core/model';
import type { AgentStore, ChatStores, Clock, Ids, LlmClient, ProviderStore, SettingsStore, TokenCounter } from '../../core/ports';
import { resolveModelInfo } from '../../core/model/model-catalog';

/** The setting holding the model the person picked for summaries (absent: built-in, else the chat's). */
export const COMPACTION_MODEL_SETTING = 'compactionModel';

/** A summary request that runs longer than this is given up; the next saved turn tries again. */
const COMPACTION_TIMEOUT_MS = 120_000;

export interface CompactionRunnerDeps {
  llm: LlmClient;
  tokens: TokenCounter;
  clock: Clock;
  ids: Ids;
  agents: AgentStore;
  providers: ProviderStore;
  settings: SettingsStore;
  /** Where the chat is kept (the database, or memory for a temporary chat), with its summaries. */
  chatStoresFor(sessionId: string): ChatStores;
}

export interface CompactionRunner {
  /** After a saved turn: summarises the visible branch if its history is long (in the background). */
  afterTurn(sessionId: string): Promise<ChatSummary | null>;
  /** "Compact now": summarises the visible branch whatever its length (the newest turns stay). */
  compactNow(sessionId: string): Promise<ChatSummary | null>;
  /** "Undo compaction": the visible branch's summary is marked undone; its messages are sent again. */
  undo(sessionId: string): Promise<ChatSummary | null>;
  /** The session's summaries (undone ones too), for the inspector. */
  list(sessionId: string): Promise<ChatSummary[]>;
}

/** Runs compaction for the agent worker: one run per session at a time, on the visible branch. */
export function createCompactionRunner(deps: CompactionRunnerDeps): CompactionRunner {
  const running = new Map<string, Promise<ChatSummary | null>>();

  async function run(sessionId: SessionId, force: boolean): Promise<ChatSummary | null> {
    const chat = deps.chatStoresFor(sessionId);
    const session = await chat.sessions.get(sessionId);
    if (!session?.currentLeafId) return null;
    const chain = await chat.messages.loadChain(session.currentLeafId);
    const agent = (session.agentId ? await deps.agents.get(session.agentId) : undefined) ?? createDefaultAgent(deps.clock.now());
    const lastAnswer = chain.findLast((message) => message.role === 'assistant');
    const chatRef = (lastAnswer?.role === 'assistant' ? lastAnswer.model : undefined) ?? agent.defaultModel;
    if (!chatRef) return null;
    const providers = await deps.providers.list();
    const chatProvider = providers.find((provider) => provider.id === chatRef.providerId);
    if (!chatProvider) return null;
    const picked = modelRefSchema.safeParse(await deps.settings.get<ModelRef>(COMPACTION_MODEL_SETTING));
    const summariserRef = chooseSummariserRef(providers, chatRef, picked.success ? picked.data : null);
    const summariserProvider = providers.find((provider) => provider.id === summariserRef.providerId) ?? chatProvider;
    return compactChat(
      {
        sessionId,
        chain,
        agent,
        chatModel: resolveModelInfo(chatProvider, chatRef.modelId),
        chatProvider,
        summariser: {
          provider: summariserProvider,
          ref: summariserRef,
          model: resolveModelInfo(summariserProvider, summariserRef.modelId),
        },
        force,
      },
      { ...deps, summaries: chat.summaries },
      AbortSignal.timeout(COMPACTION_TIMEOUT_MS),
    );
  }

  function once(sessionId: string, force: boolean): Promise<ChatSummary | null> {
    const current = running.get(sessionId);
    if (current) return current.then(() => (force ? once(sessionId, force) : null));
    const started = run(sessionId as SessionId, force).finally(() => running.delete(sessionId));
    running.set(sessionId, started);
    return started;
  }

  return {
    afterTurn: (sessionId) => once(sessionId, false),
    compactNow: (sessionId) => once(sessionId, true),
    async undo(sessionId) {
      await running.get(sessionId)?.catch(() => null);
      const chat = deps.chatStoresFor(sessionId);
      const session = await chat.sessions.get(sessionId as SessionId);
      if (!session?.currentLeafId) return null;
      const chain = await chat.messages.loadChain(session.currentLeafId);
      return undoCompaction(session.id, chain, { clock: deps.clock, summaries: chat.summaries });
    },
    list: (sessionId) => deps.chatStoresFor(sessionId).summaries.listBySession(sessionId as SessionId),
  };
}
