import type { ChatMessageSimple, MessageId, ModelRef, Session, SessionId } from '../core/model';
import type { MessageStore, SessionStore } from '../core/ports';
import type { AgentClient } from '../workers/agent/agent.client';
import type { ConfirmationRequest, Packet } from '../workers/agent/agent.api';
import { answerFromMessage, applyPacket, createLiveAnswer, type AnswerView } from './answer-blocks';

export interface ChatSessionDeps {
  agent: AgentClient;
  sessions: SessionStore;
  messages: MessageStore;
  newRunId(): string;
  /** Called when a first message created the session, so the route can follow it. */
  onSessionCreated(sessionId: SessionId): void;
}

export type ChatItem =
  | { kind: 'user'; message: ChatMessageSimple & { role: 'user' } }
  | { kind: 'answer'; answer: AnswerView };

/**
 * The open chat: the stored chain plus the answers streaming in. Runes live here; the packet
 * reducer is plain TypeScript in answer-blocks.ts.
 */
export class ChatSessionState {
  session = $state<Session | null>(null);
  chain = $state<ChatMessageSimple[]>([]);
  /** The user message being answered and the live answers, until the turn is saved. */
  pendingUser = $state<ChatMessageSimple | null>(null);
  liveAnswers = $state<AnswerView[]>([]);
  isRunning = $state(false);
  error = $state<string | null>(null);
  /** A tool call waiting for the person's yes or no (shown as a dialog). */
  pendingConfirmation = $state<ConfirmationRequest | null>(null);
  private resolveConfirmation: ((isAllowed: boolean) => void) | null = null;
  private runId: string | null = null;
  private loadToken = 0;

  constructor(private readonly deps: ChatSessionDeps) {}

  readonly items: ChatItem[] = $derived.by(() => {
    const items: ChatItem[] = [];
    for (const message of this.chain) {
      if (message.role === 'user') items.push({ kind: 'user', message });
      else items.push({ kind: 'answer', answer: answerFromMessage(message, message.model?.modelId ?? '') });
    }
    if (this.pendingUser?.role === 'user') items.push({ kind: 'user', message: this.pendingUser });
    // A live answer gives way to its stored copy, so no message is ever listed twice.
    for (const answer of this.liveAnswers) {
      const isStored = this.chain.some((message) => message.id === answer.messageId);
      if (!isStored) items.push({ kind: 'answer', answer });
    }
    return items;
  });

  async open(sessionId: SessionId | null): Promise<void> {
    const token = ++this.loadToken;
    const loaded = await this.load(sessionId);
    if (token !== this.loadToken) return;
    this.show(loaded);
  }

  private async load(sessionId: SessionId | null): Promise<{ session: Session | null; chain: ChatMessageSimple[]; isMissing: boolean }> {
    if (sessionId === null) return { session: null, chain: [], isMissing: false };
    const session = await this.deps.sessions.get(sessionId);
    const chain = session?.currentLeafId ? await this.deps.messages.loadChain(session.currentLeafId) : [];
    return { session: session ?? null, chain, isMissing: !session };
  }

  /** Swaps in a loaded session in one synchronous step (no render sees half of it). */
  private show(loaded: { session: Session | null; chain: ChatMessageSimple[]; isMissing: boolean }): void {
    this.session = loaded.session;
    this.chain = loaded.chain;
    this.error = loaded.isMissing ? 'This chat no longer exists.' : null;
  }

  /** The person's answer to the pending confirmation. */
  answerConfirmation(isAllowed: boolean): void {
    const resolve = this.resolveConfirmation;
    this.resolveConfirmation = null;
    this.pendingConfirmation = null;
    resolve?.(isAllowed);
  }

  private readonly confirm = (request: ConfirmationRequest): Promise<boolean> => {
    // One question at a time: a newer one replaces (and refuses) an unanswered older one.
    this.answerConfirmation(false);
    this.pendingConfirmation = request;
    return new Promise((resolve) => {
      this.resolveConfirmation = resolve;
    });
  };

  /** Reloads the open chat from storage (after another part of the app changed it). */
  async reload(): Promise<void> {
    await this.open(this.session?.id ?? null);
  }

  /** Answers the question of a stopped, interrupted or failed answer again, as a sibling. */
  async retry(answerId: string, models: ModelRef[]): Promise<void> {
    const index = this.chain.findIndex((m) => m.id === answerId);
    const question = this.chain[index - 1];
    if (index < 1 || question?.role !== 'user') return;
    const answer = this.chain[index];
    const model = answer?.role === 'assistant' && answer.model ? [answer.model] : models;
    // The visible chain ends at the question while the new answer streams in.
    this.chain = this.chain.slice(0, index);
    await this.run({ text: question.text, models: model, retryOf: question.id }, null);
  }

  async send(text: string, models: ModelRef[]): Promise<void> {
    const trimmed = text.trim();
    if (trimmed.length === 0) return;
    const pending = optimisticUserMessage(trimmed, this.session?.id ?? null, this.chain.at(-1)?.id ?? null);
    await this.run({ text: trimmed, models }, pending);
  }

  private async run(
    request: { text: string; models: ModelRef[]; retryOf?: string },
    pendingUser: ChatMessageSimple | null,
  ): Promise<void> {
    if (this.isRunning) return;
    const { models } = request;
    const runId = this.deps.newRunId();
    this.runId = runId;
    this.isRunning = true;
    this.error = null;
    this.pendingUser = pendingUser;
    this.liveAnswers = [];
    let createdSessionId: SessionId | null = null;

    const onPackets = (packets: Packet[]): void => {
      for (const packet of packets) {
        if (packet.obj.type === 'message_start') {
          if (createdSessionId === null && this.session === null) {
            // A new chat exists from its first packet on: its address can be bookmarked or reopened.
            createdSessionId = packet.obj.sessionId as SessionId;
            this.deps.onSessionCreated(createdSessionId);
          }
          createdSessionId ??= packet.obj.sessionId as SessionId;
          const label = models[packet.placement.modelIndex]?.modelId ?? '';
          this.liveAnswers.push(createLiveAnswer(packet.obj.assistantMessageId, packet.placement.modelIndex, label));
          continue;
        }
        const answer = this.liveAnswers.find((a) => a.modelIndex === packet.placement.modelIndex);
        if (answer) applyPacket(answer, packet);
      }
    };

    let error: string | null = null;
    let loaded: Awaited<ReturnType<ChatSessionState['load']>> | undefined;
    let isNew = false;
    try {
      // Structured clone cannot copy reactive proxies: send plain data across to the worker.
      const result = await this.deps.agent.send(
        runId,
        $state.snapshot({ sessionId: this.session?.id ?? null, ...request }),
        onPackets,
        this.confirm,
      );
      if (!result.ok) error = result.error.message;
      const sessionId = result.ok ? (result.value.sessionId as SessionId) : (createdSessionId ?? this.session?.id ?? null);
      if (sessionId) {
        isNew = this.session?.id !== sessionId;
        this.loadToken++;
        loaded = await this.load(sessionId);
      }
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught);
    }
    // The saved turn replaces the live one in a single step.
    if (loaded) this.show(loaded);
    this.error = error;
    this.pendingUser = null;
    this.liveAnswers = [];
    this.isRunning = false;
    this.runId = null;
    this.answerConfirmation(false);
    if (isNew && loaded?.session) this.deps.onSessionCreated(loaded.session.id);
  }

  async stop(): Promise<void> {
    if (this.runId) await this.deps.agent.stop(this.runId);
  }

  reset(): void {
    this.session = null;
    this.chain = [];
    this.pendingUser = null;
    this.liveAnswers = [];
    this.error = null;
  }
}

function optimisticUserMessage(text: string, sessionId: SessionId | null, parentId: MessageId | null): ChatMessageSimple {
  const now = Date.now();
  return {
    id: `pending-${now}` as MessageId,
    sessionId: (sessionId ?? 'pending') as SessionId,
    parentId,
    role: 'user',
    text,
    textTokenCount: 0,
    attachments: [],
    isPinned: false,
    isExcluded: false,
    createdAt: now,
    updatedAt: now,
  };
}
