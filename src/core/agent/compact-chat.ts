import {
  buildSummaryRequest,
  coveredIdsThrough,
  findUndoableSummary,
  planCompaction,
} from '../context';
import type {
  Agent,
  ChatMessageSimple,
  ChatSummary,
  ModelInfo,
  ModelRef,
  ProviderConfig,
  SessionId,
} from '../model';
import type { Clock, Ids, LlmClient, SummaryStore, TokenCounter } from '../ports';

export interface CompactDeps {
  llm: LlmClient;
  tokens: TokenCounter;
  clock: Clock;
  ids: Ids;
  summaries: SummaryStore;
}

/** The model that writes summaries, with its provider and what the app knows about it. */
export interface Summariser {
  provider: ProviderConfig;
  ref: ModelRef;
  model: ModelInfo;
}

export interface CompactArgs {
  sessionId: SessionId;
  /** The branch as saved, oldest first, ending with the turn just answered. */
  chain: ChatMessageSimple[];
  agent: Agent;
  /** The chat's own model: its window decides when the history is long. */
  chatModel: ModelInfo;
  chatProvider: ProviderConfig;
  summariser: Summariser;
  /** "Compact now": no threshold, and a summary the person undid does not hold it back. */
  force: boolean;
}

export class CompactionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CompactionError';
  }
}

/**
 * Who writes the summary: the model the person picked when it is still configured, else the
 * built-in model when there is one, else the chat's own model.
 */
export function chooseSummariserRef(
  providers: readonly ProviderConfig[],
  chatModel: ModelRef,
  picked: ModelRef | null,
): ModelRef {
  if (picked !== null && providers.some((provider) => provider.id === picked.providerId)) return picked;
  const builtIn = providers.find((provider) => provider.kind === 'local' && provider.models.length > 0);
  const builtInModel = builtIn?.models[0];
  if (builtIn !== undefined && builtInModel !== undefined) return { providerId: builtIn.id, modelId: builtInModel };
  return chatModel;
}

/** The newest summary of this branch, undone or not (the person's last word on it). */
function newestOnBranch(chain: readonly ChatMessageSimple[], summaries: readonly ChatSummary[]): ChatSummary | null {
  const ids = new Set(chain.map((message) => message.id));
  let newest: ChatSummary | null = null;
  for (const summary of summaries) {
    if (!ids.has(summary.lastMessageId)) continue;
    if (newest === null || summary.createdAt > newest.createdAt) newest = summary;
  }
  return newest;
}

/**
 * Summarises the oldest turns of a branch when its history is long (or when asked), and stores
 * the summary as a record pointing at the messages it stands for: nothing is deleted or changed.
 * The new summary continues the branch's active one (its text and the turns since). Off when
 * the agent says so; after an undo, only "Compact now" summarises that branch again. Returns
 * the stored summary, or null when there was nothing to do.
 */
export async function compactChat(
  args: CompactArgs,
  deps: CompactDeps,
  signal: AbortSignal,
): Promise<ChatSummary | null> {
  if (!args.force && args.agent.isCompactionEnabled === false) return null;
  const summaries = await deps.summaries.listBySession(args.sessionId);
  if (!args.force && newestOnBranch(args.chain, summaries)?.undoneAt !== undefined) return null;
  const plan = planCompaction(
    {
      chain: args.chain,
      agent: args.agent,
      project: null,
      systemPromptOverride: null,
      tools: [],
      hasSearchRunInTurn: false,
      isLastCycle: false,
      model: args.chatModel,
      providerKind: args.chatProvider.kind,
      summaries,
      clock: deps.clock,
      tokenCounter: deps.tokens,
    },
    { force: args.force },
  );
  if (plan === null) return null;
  const request = buildSummaryRequest(plan, args.summariser.model, deps.tokens);
  if (request === null) {
    throw new CompactionError(
      `The summary model (${args.summariser.ref.modelId}) cannot take even one message of this chat; pick a model with a larger window.`,
    );
  }
  let text = '';
  for await (const event of deps.llm.stream(
    {
      provider: args.summariser.provider,
      modelId: args.summariser.ref.modelId,
      messages: request.messages,
      tools: [],
      maxOutputTokens: request.maxOutputTokens,
    },
    signal,
  )) {
    if (event.type === 'text-delta') text += event.text;
    if (event.type === 'error') throw new CompactionError(`The summary could not be written: ${event.error.message}`);
  }
  text = text.trim();
  const last = request.turns.at(-1);
  if (text.length === 0 || last === undefined) return null;
  return deps.summaries.add({
    id: deps.ids.newId(),
    sessionId: args.sessionId,
    lastMessageId: last.id,
    coveredIds: coveredIdsThrough(args.chain, last.id),
    previousSummaryId: plan.previous?.id ?? null,
    text,
    tokenCount: deps.tokens.count(text),
    model: args.summariser.ref,
    createdAt: deps.clock.now(),
  });
}

/**
 * Takes back the summary the branch uses now: it stays stored, marked undone, and the messages
 * it stood for are sent again (or the previous summary is, if there was one). Returns it, or
 * null when the branch has none.
 */
export async function undoCompaction(
  sessionId: SessionId,
  chain: readonly ChatMessageSimple[],
  deps: Pick<CompactDeps, 'summaries' | 'clock'>,
): Promise<ChatSummary | null> {
  const summary = findUndoableSummary(chain, await deps.summaries.listBySession(sessionId));
  if (summary === null) return null;
  await deps.summaries.markUndone(summary.id, deps.clock.now());
  return { ...summary, undoneAt: deps.clock.now() };
}
