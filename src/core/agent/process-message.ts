import { z } from 'zod';
import {
  asMessageId,
  asSessionId,
  attachmentSchema,
  toPlainTitle,
  modelRefSchema,
  type AssistantMessage,
  type ChatMessageSimple,
  type MessageId,
  type ModelRef,
  type ProviderConfig,
  type Session,
  type StopReason,
  type Usage,
  type UserMessage,
} from '../model';
import type {
  Clock,
  ConfirmationPort,
  Ids,
  LlmClient,
  MessageStore,
  Scheduler,
  ProviderStore,
  SessionStore,
  TokenCounter,
} from '../ports';
import type { AssembledContext } from '../context';
import { prepareContext, resolveTurn, type ResolvedTurn, type TurnPorts } from './assemble-turn';
import { Checkpointer } from './checkpointer';
import { buildFusePrompt, selectFuseCandidates, type FuseCandidate } from './fuse-answers';
import { createEmitter, type PacketSink } from './emitter';
import type { ExecuteContext } from './execute-tool-calls';
import { runLlmLoop, type LoopOutcome } from './run-llm-loop';
import { StateContainer } from './state-container';

/** Compare mode runs at most this many models on one turn. */
export const MAX_COMPARE_MODELS = 3;

export const sendMessageRequestSchema = z.object({
  /** null starts a new session. */
  sessionId: z.string().min(1).nullable(),
  /** The parent of the new user message; defaults to the session's current leaf. */
  parentId: z.string().min(1).nullable().optional(),
  text: z.string(),
  attachments: z.array(attachmentSchema).default([]),
  models: z.array(modelRefSchema).min(1, 'Choose a model first.').max(MAX_COMPARE_MODELS),
  projectId: z.string().min(1).nullable().optional(),
  agentId: z.string().min(1).nullable().optional(),
  /** Answer this user message again (regenerate, retry, another model): no new user message. */
  retryOf: z.string().min(1).optional(),
  /**
   * A new chat that is never written to the database (a temporary chat): the host keeps it in
   * memory. An existing chat stays where it is kept.
   */
  isTemporary: z.boolean().optional(),
  /** Merge these compared answers to `retryOf` into one new answer, written by the one model. */
  fuseOf: z.array(z.string().min(1)).min(2).max(MAX_COMPARE_MODELS).optional(),
}).refine((request) => request.retryOf !== undefined || request.text.trim().length > 0, {
  message: 'The message is empty.',
  path: ['text'],
}).refine((request) => request.fuseOf === undefined || (request.retryOf !== undefined && request.models.length === 1), {
  message: 'Merging answers needs the question they answer and one model to write the merged answer.',
  path: ['fuseOf'],
});
export type SendMessageRequest = z.input<typeof sendMessageRequestSchema>;

export interface AgentDeps {
  clock: Clock;
  ids: Ids;
  tokens: TokenCounter;
  llm: LlmClient;
  scheduler: Scheduler;
  sessions: SessionStore;
  messages: MessageStore;
  providers: ProviderStore;
  /** What turn assembly reads: agents, projects and their files, settings, tools. */
  turn: TurnPorts;
  /** Asks the person before a risky tool call; refuses when nobody can be asked. */
  confirmation: ConfirmationPort;
  /** The chain ending at `leafId`, oldest first (empty for null), through the session cache. */
  loadChain(session: Session, leafId: MessageId | null): Promise<ChatMessageSimple[]>;
  /** Keeps a usage record per answer (costs over time); the message carries its usage too. */
  recordUsage?: (entry: { sessionId: Session['id']; messageId: MessageId; model: ModelRef; usage: Usage }) => Promise<unknown>;
  /** Tells the session cache about the chain this turn just wrote. */
  rememberChain(session: Session, chain: ChatMessageSimple[]): void;
  renderDocuments: ExecuteContext['renderDocuments'];
  /**
   * Sees each request as it is assembled for a model, before it is sent: the last one of a
   * turn is the request that answered the question (the inspector's "last request").
   */
  onRequest?: (record: SentRequest) => void;
}

/** One assembled request of a turn, as it went to the model. */
export interface SentRequest {
  userMessageId: MessageId;
  modelIndex: number;
  context: AssembledContext;
}

export class AgentRequestError extends Error {
  constructor(
    readonly code: 'invalid_request' | 'not_found' | 'no_provider',
    message: string,
  ) {
    super(message);
    this.name = 'AgentRequestError';
  }
}

export interface TurnResult {
  sessionId: string;
  /** The session's first exchange: the host may ask the model for a title. */
  isFirstTurn: boolean;
  userMessageId: string;
  assistantMessageIds: string[];
  stopReasons: StopReason[];
}

/**
 * The top level of a turn: validates the request, saves the user
 * message before any LLM call so it is never lost, loads the chain, resolves agent, project and
 * models, runs every model, and persists each answer from its state container whether it
 * finished, stopped or failed. Lower levels never touch storage.
 */
/**
 * One AbortController per model of a run, each linked to the run's signal: aborting the run
 * stops every model, `stopModel` stops one (compare mode) and leaves the others streaming.
 */
export class ModelAborts {
  private readonly controllers = new Map<number, AbortController>();

  /** The signal model `modelIndex` runs with; already aborted if it was stopped before it began. */
  signalFor(modelIndex: number, runSignal: AbortSignal): AbortSignal {
    const controller = this.controllerFor(modelIndex);
    if (runSignal.aborted) controller.abort(runSignal.reason);
    else runSignal.addEventListener('abort', () => controller.abort(runSignal.reason), { once: true });
    return controller.signal;
  }

  stopModel(modelIndex: number): void {
    this.controllerFor(modelIndex).abort();
  }

  private controllerFor(modelIndex: number): AbortController {
    let controller = this.controllers.get(modelIndex);
    if (controller === undefined) {
      controller = new AbortController();
      this.controllers.set(modelIndex, controller);
    }
    return controller;
  }
}

export async function processMessage(
  rawRequest: unknown,
  deps: AgentDeps,
  sink: PacketSink,
  signal: AbortSignal,
  modelAborts: ModelAborts = new ModelAborts(),
): Promise<TurnResult> {
  const parsed = sendMessageRequestSchema.safeParse(rawRequest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AgentRequestError('invalid_request', issue?.message ?? 'Invalid request.');
  }
  const request = parsed.data;
  const providers = await resolveProviders(request.models, deps);
  let session = await openSession(request.sessionId, request, deps);

  let userMessage: UserMessage;
  let chain: ChatMessageSimple[];
  if (request.retryOf !== undefined) {
    const existing = await deps.messages.get(asMessageId(request.retryOf));
    if (existing?.role !== 'user' || existing.sessionId !== session.id) {
      throw new AgentRequestError('not_found', 'The message to answer again no longer exists.');
    }
    userMessage = existing;
    chain = await deps.loadChain(session, existing.id);
  } else {
    const parentId =
      request.parentId === undefined ? session.currentLeafId : request.parentId === null ? null : asMessageId(request.parentId);
    // The history up to the parent, read (through the session cache) before the new message
    // changes the session's version.
    const parentChain = await deps.loadChain(session, parentId);
    const now = deps.clock.now();
    userMessage = {
      id: asMessageId(deps.ids.newId()),
      sessionId: session.id,
      parentId,
      role: 'user',
      text: request.text,
      textTokenCount: deps.tokens.count(request.text),
      attachments: request.attachments,
      isPinned: false,
      isExcluded: false,
      createdAt: now,
      updatedAt: now,
    };
    await deps.messages.put(userMessage);
    session = await deps.sessions.update(session.id, {
      currentLeafId: userMessage.id,
      ...(session.title === '' ? { title: fallbackTitle(request.text) } : {}),
    });
    chain = [...parentChain, userMessage];
  }
  const isFirstTurn = chain.length === 1;
  // Merging: the model answers the question with the compared answers in front of it.
  const fused = request.fuseOf === undefined ? null : await loadFuseCandidates(request.fuseOf, userMessage, deps);
  const turnChain = fused === null ? chain : [...chain.slice(0, -1), fusedQuestion(userMessage, fused, deps.tokens)];

  const turn = await resolveTurn({ chain: turnChain, session, agentId: session.agentId, projectId: session.projectId }, deps.turn, {
    confirmation: deps.confirmation,
    signal,
  });

  // Compared answers are stamped a millisecond apart in the order of the models: siblings sort
  // by time, so their branches read 1/n, 2/n… in the order the models were chosen.
  const answeredAt = deps.clock.now();
  const outcomes = await Promise.all(
    request.models.map((modelRef, modelIndex) =>
      runModel({
        modelRef,
        modelIndex,
        createdAt: answeredAt + modelIndex,
        provider: providers[modelIndex] as ProviderConfig,
        session,
        userMessage,
        turn,
        deps,
        sink,
        signal: modelAborts.signalFor(modelIndex, signal),
        fusedFrom: fused?.map(({ messageId, model }) => ({ messageId, ...(model ? { model } : {}) })) ?? null,
      }),
    ),
  );

  const firstAnswer = outcomes[0];
  if (firstAnswer) {
    session = await deps.sessions.update(session.id, { currentLeafId: firstAnswer.message.id });
    deps.rememberChain(session, [...chain, firstAnswer.message]);
  }
  const overall: StopReason = signal.aborted ? 'user_cancelled' : (firstAnswer?.message.stopReason ?? 'completed');
  sink({ placement: { turnIndex: 0, tabIndex: 0, modelIndex: 0 }, obj: { type: 'overall_stop', reason: overall } });
  return {
    sessionId: session.id,
    isFirstTurn,
    userMessageId: userMessage.id,
    assistantMessageIds: outcomes.map((o) => o.message.id),
    stopReasons: outcomes.map((o) => o.message.stopReason ?? 'completed'),
  };
}

interface RunModelArgs {
  modelRef: ModelRef;
  modelIndex: number;
  provider: ProviderConfig;
  session: Session;
  userMessage: UserMessage;
  turn: ResolvedTurn;
  deps: AgentDeps;
  sink: PacketSink;
  signal: AbortSignal;
  /** A merged answer's sources; null for an ordinary answer. */
  fusedFrom: AssistantMessage['fusedFrom'] | null;
  createdAt: number;
}

/**
 * One model's answer: its own emitter tagged with the model index, its
 * own state container, saved as a sibling under the user message. A failure stays with this
 * model; the others continue.
 */
async function runModel(args: RunModelArgs): Promise<{ message: AssistantMessage }> {
  const { deps, modelIndex, signal } = args;
  const state = new StateContainer(deps.clock.now());
  const base: AssistantMessage = {
    id: asMessageId(deps.ids.newId()),
    sessionId: args.session.id,
    parentId: args.userMessage.id,
    role: 'assistant',
    steps: [],
    status: 'streaming',
    model: args.modelRef,
    citations: [],
    ...(args.fusedFrom ? { fusedFrom: args.fusedFrom } : {}),
    isPinned: false,
    isExcluded: false,
    createdAt: args.createdAt,
    updatedAt: args.createdAt,
  };
  await deps.messages.put(base);

  const checkpointer = new Checkpointer(state, deps.clock, deps.scheduler, (s) =>
    deps.messages.put(snapshot(base, s, 'streaming', deps)),
  );
  const emitter = createEmitter(modelIndex, (packet) => {
    args.sink(packet);
    checkpointer.maybeFlush();
  });
  emitter.emit({
    type: 'message_start',
    sessionId: args.session.id,
    userMessageId: args.userMessage.id,
    assistantMessageId: base.id,
  });
  for (const message of args.turn.toolSource.warnings ?? []) emitter.emit({ type: 'warning', message });

  let outcome: LoopOutcome;
  try {
    const prepared = prepareContext(args.turn, args.provider, args.modelRef.modelId, deps.turn, (context) =>
      deps.onRequest?.({ userMessageId: args.userMessage.id, modelIndex, context }),
    );
    const { generation } = prepared;
    outcome = await runLlmLoop(
      {
        request: {
          provider: args.provider,
          modelId: args.modelRef.modelId,
          maxOutputTokens: generation.maxOutputTokens,
          controls: generation.controls,
          cacheKey: args.session.id,
        },
        // A merge works from the answers in front of it: no searching anew.
        tools: args.fusedFrom ? [] : prepared.tools,
        signal,
        documents: prepared.documents,
      },
      {
        llm: deps.llm,
        clock: deps.clock,
        tokens: deps.tokens,
        assemble: prepared.assemble,
        renderDocuments: deps.renderDocuments,
        ...(prepared.onStepUsage ? { onStepUsage: prepared.onStepUsage } : {}),
      },
      emitter,
      state,
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    outcome = signal.aborted
      ? { stopReason: 'user_cancelled' }
      : { stopReason: 'error', error: { code: 'internal', message } };
    if (!signal.aborted) emitter.emit({ type: 'error', code: 'internal', message });
  }
  if (signal.aborted && outcome.stopReason !== 'error') outcome = { stopReason: 'user_cancelled' };

  state.finish(outcome.stopReason, outcome.error);
  await checkpointer.settle();
  const final = snapshot(base, state, statusFor(outcome.stopReason), deps);
  await deps.messages.put(final);
  if (final.usage) await deps.recordUsage?.({ sessionId: final.sessionId, messageId: final.id, model: args.modelRef, usage: final.usage });
  emitter.emit({ type: 'stop', reason: outcome.stopReason });
  return { message: final };
}

/** The compared answers to merge: answers to `question`, with text, at least two. */
async function loadFuseCandidates(ids: readonly string[], question: UserMessage, deps: AgentDeps): Promise<FuseCandidate[]> {
  const answers: AssistantMessage[] = [];
  for (const id of ids) {
    const answer = await deps.messages.get(asMessageId(id));
    if (answer?.role !== 'assistant' || answer.parentId !== question.id) {
      throw new AgentRequestError('not_found', 'An answer to merge no longer exists.');
    }
    answers.push(answer);
  }
  const candidates = selectFuseCandidates(answers);
  if (candidates.length < 2) {
    throw new AgentRequestError('invalid_request', 'Merging needs at least two answers with text.');
  }
  return candidates;
}

/** The question as the merging model reads it (never stored: the chat keeps the question asked). */
function fusedQuestion(question: UserMessage, candidates: readonly FuseCandidate[], tokens: TokenCounter): UserMessage {
  const text = buildFusePrompt(question.text, candidates);
  return { ...question, text, textTokenCount: tokens.count(text) };
}

function statusFor(reason: StopReason): AssistantMessage['status'] {
  switch (reason) {
    case 'completed':
    case 'length':
    case 'content_filter':
    case 'max_cycles':
      return 'complete';
    case 'user_cancelled':
      return 'stopped';
    case 'interrupted':
      return 'interrupted';
    case 'error':
      return 'error';
  }
}

/** The message as it stands in the state container, with token counts for the stored text. */
function snapshot(
  base: AssistantMessage,
  state: StateContainer,
  status: AssistantMessage['status'],
  deps: AgentDeps,
): AssistantMessage {
  const steps = state.steps.map((step) => ({
    ...step,
    textTokenCount: deps.tokens.count(step.text),
    toolCalls: step.toolCalls.map((call) => ({ ...call, ...(call.result ? { result: { ...call.result } } : {}) })),
    ...(step.reasoning
      ? { reasoning: { ...step.reasoning, tokenCount: deps.tokens.count(step.reasoning.text) } }
      : {}),
  }));
  return {
    ...base,
    steps,
    status,
    citations: [...state.citations],
    updatedAt: deps.clock.now(),
    ...(state.stopReason ? { stopReason: state.stopReason } : {}),
    ...(state.error ? { error: state.error } : {}),
    ...(state.usage ? { usage: state.usage } : {}),
  };
}

async function resolveProviders(models: ModelRef[], deps: AgentDeps): Promise<ProviderConfig[]> {
  return Promise.all(
    models.map(async (model) => {
      const provider = await deps.providers.get(model.providerId);
      if (!provider) {
        throw new AgentRequestError('no_provider', 'That provider is no longer configured. Pick another model.');
      }
      return provider;
    }),
  );
}

async function openSession(
  sessionId: string | null,
  request: z.infer<typeof sendMessageRequestSchema>,
  deps: AgentDeps,
): Promise<Session> {
  if (sessionId) {
    const session = await deps.sessions.get(asSessionId(sessionId));
    if (!session) throw new AgentRequestError('not_found', 'This chat no longer exists.');
    return session;
  }
  const now = deps.clock.now();
  const session: Session = {
    id: asSessionId(deps.ids.newId()),
    title: '',
    projectId: (request.projectId ?? null) as Session['projectId'],
    agentId: (request.agentId ?? null) as Session['agentId'],
    models: request.models,
    currentLeafId: null,
    isPinned: false,
    isArchived: false,
    createdAt: now,
    updatedAt: now,
    version: 0,
  };
  await deps.sessions.create(session);
  return session;
}

/** The first words of the question, without Markdown, until a model-written title replaces it. */
export function fallbackTitle(text: string, maxLength = 48): string {
  const singleLine = toPlainTitle(text);
  if (singleLine.length <= maxLength) return singleLine;
  const cut = singleLine.slice(0, maxLength);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > maxLength / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}
