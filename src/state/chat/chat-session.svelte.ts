import type { Attachment, ChatMessageSimple, MessageId, ModelRef, Session, SessionId } from '../../core/model';
import type { MessageBranches, MessageStore, SessionStore } from '../../core/ports';
import type { AgentClient } from '../../workers/agent/agent.client';
import type { ConfirmationRequest, Packet } from '../../workers/agent/agent.api';
import type { AnswerFeed, FollowEvent } from '../../workers/agent/answer-relay';
import { answerFromMessage, applyPacket, createLiveAnswer, type AnswerView } from './answer-blocks';
import { createChatItemsBuilder, selectMergeableAnswers, type ChatItem, type CompareGroup } from './chat-items';
import { pickSibling, type SiblingPosition } from './branches';
import type { PageChatStores } from './chat-stores';
import { closeUnsavedAnswers } from './unsaved-answers';

export type { ChatItem, CompareGroup, SiblingPosition };

/** A turn adds its question and the answer on the visible branch; more means something else changed. */
const MAX_TURN_MESSAGES = 2;
/**
 * A chat opens with the end of its chain, more than a tall screen of short messages, read in a
 * range read or two; the older messages follow in batches, each a short task, so a chat of
 * 10,000 messages draws its first screen without reading (and checking) them all first.
 */
export const FIRST_SCREEN_MESSAGES = 100;
export const OLDER_MESSAGES_BATCH = 1000;

type LoadedChat = { session: Session | null; chain: ChatMessageSimple[]; isMissing: boolean; isChainComplete: boolean };

export interface ChatSessionDeps {
  agent: AgentClient;
  sessions: SessionStore;
  /** Branch reads and switches, and flag edits (pin, exclude); content is written by the worker. */
  messages: MessageStore & MessageBranches;
  /** A temporary chat's stores (the agent worker's memory); without them no chat is temporary. */
  temporary?: PageChatStores;
  newRunId(): string;
  /** Called when a first message created the session, so the route can follow it. */
  onSessionCreated(sessionId: SessionId): void;
  /** Runs of the open chat in other tabs, streamed live. */
  feed?: Pick<AnswerFeed, 'follow'>;
  /** The open chat's stored row, again whenever any tab changes it (undefined once deleted). */
  watchSession?: (sessionId: SessionId, onValue: (session: Session | undefined) => void, onError: (error: Error) => void) => () => void;
}

/** What a stored session row shows: a change elsewhere (a checkpoint's version bump) is not news. */
function shownFields(session: Session): string {
  const { title, currentLeafId, agentId, projectId, models, isPinned, isArchived, generationOverride } = session;
  return JSON.stringify({ title, currentLeafId, agentId, projectId, models, isPinned, isArchived, generationOverride });
}

/**
 * The open chat: the stored chain plus the answers streaming in. Runes live here; the packet
 * reducer is plain TypeScript in answer-blocks.ts.
 */
export class ChatSessionState {
  session = $state<Session | null>(null);
  /** Replaced whole, never edited in place: raw, so a thousand messages are not made into deep proxies. */
  chain = $state.raw<ChatMessageSimple[]>([]);
  /** The user message being answered and the live answers, until the turn is saved. */
  pendingUser = $state<ChatMessageSimple | null>(null);
  liveAnswers = $state<AnswerView[]>([]);
  /** The warnings of this chat's answers since it was opened, by message id (they are not stored). */
  // Raw and replaced whole: the rows look up every stored message in it, and a deep proxy would
  // make each of those lookups a tracked signal.
  private answerWarnings = $state.raw<Readonly<Record<string, readonly string[]>>>({});
  isRunning = $state(false);
  error = $state<string | null>(null);
  /** A tool call waiting for the person's yes or no (shown as a dialog). */
  pendingConfirmation = $state<ConfirmationRequest | null>(null);
  /** The answers of the last compare run, side by side until one is chosen to continue with. */
  compareGroup = $state<CompareGroup | null>(null);
  /** A run of this chat in another tab, shown live in `liveAnswers`; null when there is none. */
  remoteRunId = $state<string | null>(null);
  /**
   * The open chat is temporary: kept in the agent worker's memory only, never in the database,
   * gone when it is left or the page closes, unless saved.
   */
  isTemporary = $state(false);
  /** The message the chat was opened at (a citation of it): scrolled to and highlighted. */
  focusedMessageId = $state<MessageId | null>(null);
  private resolveConfirmation: ((isAllowed: boolean) => void) | null = null;
  private runId: string | null = null;
  private loadToken = 0;
  /** This tab's runs: the relay echoes them back, and they are shown already. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping, never rendered
  private readonly ownRunIds = new Set<string>();
  private followedId: SessionId | null = null;
  private unfollow: (() => void) | null = null;
  /** Other tabs' runs are applied one event at a time, in the order they came. */
  private remoteQueue: Promise<void> = Promise.resolve();
  private remoteModels: Array<ModelRef | undefined> = [];
  /** The session's forked parents as of one version of it (see `siblingsOf`). */
  private forks: { sessionId: string; version: number; parents: Promise<ReadonlySet<string | null>> } | null = null;
  /** The shown chain's messages by id, for the chain it was built from. */
  private chainById: { chain: readonly ChatMessageSimple[]; byId: ReadonlyMap<string, ChatMessageSimple> } | null = null;

  constructor(private readonly deps: ChatSessionDeps) {}

  /** Where the open chat is read and edited: the one choice between database and memory. */
  private get stores(): Omit<PageChatStores, 'files'> {
    return this.isTemporary && this.deps.temporary ? this.deps.temporary : this.deps;
  }

  /** Whether leaving would lose something: a temporary chat with a message in it. */
  get hasUnsavedTemporaryChat(): boolean {
    return this.isTemporary && (this.session !== null || this.pendingUser !== null);
  }

  /** Starts an empty temporary chat (the one open before, if temporary, is let go). */
  openTemporary(): void {
    this.leaveTemporary();
    this.loadToken++;
    this.answerWarnings = {};
    this.compareGroup = null;
    this.isTemporary = true;
    this.show({ session: null, chain: [], isMissing: false, isChainComplete: true });
  }

  /**
   * "Save this chat": the worker writes the temporary chat to the database as a saved chat
   * (new ids) and forgets the temporary one; the saved chat opens in its place.
   */
  async saveTemporary(onSaved?: (sessionId: SessionId) => void): Promise<SessionId | null> {
    const sessionId = this.session?.id;
    if (!this.isTemporary || !sessionId || this.isRunning) return null;
    const saved = await this.deps.agent.saveTemporaryChat(sessionId);
    if (!saved.ok) {
      this.error = saved.error.message;
      return null;
    }
    // The address moves to the saved chat before this stops being temporary, so nothing takes
    // the temporary address as a request for a new temporary chat meanwhile.
    onSaved?.(saved.value.sessionId as SessionId);
    this.isTemporary = false;
    await this.open(saved.value.sessionId as SessionId);
    return saved.value.sessionId as SessionId;
  }

  /** Lets go of the open temporary chat, if any: the worker forgets it. */
  private leaveTemporary(): void {
    const sessionId = this.session?.id;
    if (this.isTemporary && sessionId) {
      void this.deps.agent.discardTemporaryChat(sessionId).catch((caught: unknown) => console.warn('Could not let go of the temporary chat:', caught));
    }
    this.isTemporary = false;
  }

  /** Keeps the rows built for stored messages: a longer chain (older messages read) builds only the new ones. */
  private readonly buildItems = createChatItemsBuilder();
  /** Moves on whenever a chain is shown whole, so a batch of older messages read for another one is dropped. */
  private shownChains = 0;

  readonly items: ChatItem[] = $derived(
    this.buildItems({
      chain: this.chain,
      pendingUser: this.pendingUser,
      liveAnswers: this.liveAnswers,
      compareGroup: this.compareGroup,
      warnings: this.answerWarnings,
    }),
  );

  /**
   * Shows a chat; with `focusMessageId`, at that message: a message on another branch makes its
   * branch the visible one first, as the branch switcher would.
   */
  async open(sessionId: SessionId | null, focusMessageId: MessageId | null = null): Promise<void> {
    if (this.isTemporary && sessionId !== this.session?.id) this.leaveTemporary();
    const token = ++this.loadToken;
    if (sessionId !== (this.session?.id ?? null)) this.answerWarnings = {};
    const isFocused = focusMessageId !== null;
    let loaded = await this.load(sessionId, isFocused);
    const isShown = (): boolean => loaded.chain.some((message) => message.id === focusMessageId);
    if (isFocused && loaded.session && !isShown()) {
      const message = await this.stores.messages.get(focusMessageId);
      if (message?.sessionId === loaded.session.id) {
        await this.stores.messages.switchBranch(focusMessageId);
        loaded = await this.load(sessionId, true);
      }
    }
    if (token !== this.loadToken) return;
    if (loaded.session?.id !== this.session?.id) this.compareGroup = null;
    this.focusedMessageId = focusMessageId !== null && isShown() ? focusMessageId : null;
    this.show(loaded);
  }

  /** The session and the end of its chain; `show` reads the older messages after it is drawn. */
  private async load(sessionId: SessionId | null, isWhole = false): Promise<LoadedChat> {
    if (sessionId === null) return { session: null, chain: [], isMissing: false, isChainComplete: true };
    const session = await this.stores.sessions.get(sessionId);
    if (!session?.currentLeafId) return { session: session ?? null, chain: [], isMissing: !session, isChainComplete: true };
    if (isWhole) {
      // A chat opened at a message (a citation) needs that message on screen at once, however
      // far up the chain it is.
      const chain = await this.stores.messages.loadChain(session.currentLeafId);
      return { session, chain, isMissing: false, isChainComplete: true };
    }
    const end = await this.stores.messages.loadChainEnd(session.currentLeafId, FIRST_SCREEN_MESSAGES);
    return { session, chain: end.messages, isMissing: false, isChainComplete: end.isComplete };
  }

  /**
   * Reads the messages above the first one shown, a batch at a time, and puts them in front of
   * the chain, for as long as the chain shown still starts where the batch ends (a send, an edit
   * or a retry keeps its start; another chat or branch shown whole stops it).
   */
  private async loadOlder(): Promise<void> {
    const generation = this.shownChains;
    for (;;) {
      // Each batch is its own task: the screen drawn so far paints, scrolling and typing go on.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const first = this.chain[0];
      if (generation !== this.shownChains || !first?.parentId) return;
      const older = await this.stores.messages.loadChainEnd(first.parentId, OLDER_MESSAGES_BATCH);
      if (generation !== this.shownChains || this.chain[0]?.id !== first.id) return;
      this.chain = [...older.messages, ...this.chain];
      if (older.isComplete) return;
    }
  }

  /**
   * After a saved turn: the chain shown plus what the turn added below its end, read by id, so
   * a long chat is not read and parsed again (and its rows keep their objects, so they do not
   * render again). Null when the stored branch does not continue the chain shown (another tab
   * switched it, say): the caller then loads the whole chain.
   */
  private async loadTurnEnd(sessionId: SessionId): Promise<LoadedChat | null> {
    const shown = this.chain;
    const isSameChat = this.session === null ? shown.length === 0 : this.session.id === sessionId;
    if (!isSameChat) return null;
    const session = await this.stores.sessions.get(sessionId);
    if (!session?.currentLeafId) return null;
    const added = await this.stores.messages.loadChainBelow(session.currentLeafId, shown.at(-1)?.id ?? null, MAX_TURN_MESSAGES);
    // The chain may have been replaced while the rows were read.
    if (added === null || this.chain !== shown) return null;
    // The older messages the shown chain still lacks keep coming (its start is unchanged).
    return { session, chain: [...shown, ...added], isMissing: false, isChainComplete: true };
  }

  /**
   * Swaps in a loaded session in one synchronous step (no render sees half of it), then reads
   * the older messages of a chain loaded from its end.
   */
  private show(loaded: LoadedChat): void {
    const isNewChain = loaded.chain[0]?.id !== this.chain[0]?.id;
    this.session = loaded.session;
    this.chain = loaded.chain;
    this.error = loaded.isMissing ? 'This chat no longer exists.' : null;
    // Other tabs can neither show nor change a temporary chat: there is nothing to follow.
    this.follow(this.isTemporary ? null : (loaded.session?.id ?? null));
    if (isNewChain) this.shownChains++;
    if (isNewChain && !loaded.isChainComplete) void this.loadOlder();
    if (!this.isRunning && this.remoteRunId === null && hasStreamingAnswer(loaded.chain)) void this.closeAbandoned();
  }

  /**
   * An answer stored as streaming that no tab streams any more (its tab closed): the worker
   * marks it interrupted, unless a tab still holds its chat, whose live answer then replaces it.
   */
  private async closeAbandoned(): Promise<void> {
    try {
      if ((await this.deps.agent.recoverInterrupted()) > 0 && !this.isRunning && this.remoteRunId === null) await this.reload();
    } catch (caught) {
      this.error = caught instanceof Error ? caught.message : String(caught);
    }
  }

  /* ---- Other tabs: their live answers, turns, renames and deletions of the open chat. ---- */

  private follow(sessionId: SessionId | null): void {
    if (sessionId === this.followedId) return;
    this.unfollow?.();
    this.unfollow = null;
    this.followedId = sessionId;
    if (this.remoteRunId !== null) {
      this.remoteRunId = null;
      this.liveAnswers = [];
    }
    if (sessionId === null) return;
    const stops: Array<() => void> = [];
    if (this.deps.feed) {
      stops.push(
        this.deps.feed.follow(sessionId, (event) => {
          this.remoteQueue = this.remoteQueue
            .then(() => this.applyRemote(sessionId, event))
            .catch((caught: unknown) => {
              this.error = caught instanceof Error ? caught.message : String(caught);
            });
        }),
      );
    }
    if (this.deps.watchSession) {
      stops.push(
        this.deps.watchSession(
          sessionId,
          (session) => void this.onStoredSession(sessionId, session),
          (caught) => (this.error = caught.message),
        ),
      );
    }
    this.unfollow = () => {
      for (const stop of stops) stop();
    };
  }

  /** Another tab's run of the open chat: shown live, then replaced by what it stored. */
  private async applyRemote(sessionId: SessionId, event: FollowEvent): Promise<void> {
    if (this.ownRunIds.has(event.runId) || this.session?.id !== sessionId || this.isRunning) return;
    switch (event.kind) {
      case 'reset': {
        const start = event.packets.find((packet) => packet.obj.type === 'message_start');
        if (start?.obj.type !== 'message_start') return;
        // The chain down to the question; its answers come from the packets, not the checkpoint.
        const chain = await this.stores.messages.loadChain(start.obj.userMessageId as MessageId);
        this.remoteModels = [];
        await this.loadRemoteModels(event.packets);
        if (this.session?.id !== sessionId || this.isRunning) return;
        this.remoteRunId = event.runId;
        this.loadToken++;
        this.shownChains++;
        this.chain = chain;
        this.pendingUser = null;
        this.compareGroup = null;
        this.error = null;
        this.liveAnswers = [];
        this.applyPackets(event.packets, (index) => this.remoteModels[index]);
        return;
      }
      case 'packets':
        if (this.remoteRunId !== event.runId) return;
        await this.loadRemoteModels(event.packets);
        if (this.remoteRunId === event.runId) this.applyPackets(event.packets, (index) => this.remoteModels[index]);
        return;
      case 'end': {
        if (this.remoteRunId !== event.runId) return;
        // Its tab closed mid-stream: the answer is kept as interrupted, with Retry.
        if (event.isCutOff) await this.deps.agent.recoverInterrupted();
        const answerIds = this.liveAnswers.map((answer) => answer.messageId);
        const userMessageId = this.chain.at(-1)?.id;
        const token = ++this.loadToken;
        const loaded = await this.load(sessionId);
        const compareGroup =
          answerIds.length > 1 && userMessageId ? await this.loadCompareGroup(userMessageId, answerIds) : null;
        if (token !== this.loadToken || this.remoteRunId !== event.runId) return;
        this.remoteRunId = null;
        this.liveAnswers = [];
        this.compareGroup = compareGroup;
        this.show(loaded);
        return;
      }
    }
  }

  /** The model of each answer a run starts, as stored with the answer. */
  private async loadRemoteModels(packets: Packet[]): Promise<void> {
    for (const packet of packets) {
      if (packet.obj.type !== 'message_start') continue;
      const answer = await this.stores.messages.get(packet.obj.assistantMessageId as MessageId);
      this.remoteModels[packet.placement.modelIndex] = answer?.role === 'assistant' ? answer.model : undefined;
    }
  }

  /** The open chat's row changed in storage: renamed, a new turn, a branch, or deleted. */
  private async onStoredSession(sessionId: SessionId, stored: Session | undefined): Promise<void> {
    const shown = this.session;
    if (shown?.id !== sessionId || this.isRunning) return;
    if (!stored) {
      this.liveAnswers = [];
      this.remoteRunId = null;
      this.compareGroup = null;
      this.show({ session: null, chain: [], isMissing: true, isChainComplete: true });
      return;
    }
    if (stored.version <= shown.version || shownFields(stored) === shownFields(shown)) return;
    if (stored.currentLeafId === shown.currentLeafId || this.remoteRunId !== null) {
      // A rename, another model or agent; during another tab's run its end reloads the chain.
      this.session = stored;
      return;
    }
    const token = ++this.loadToken;
    const loaded = (await this.loadTurnEnd(sessionId)) ?? (await this.load(sessionId));
    if (token !== this.loadToken || this.isRunning || this.remoteRunId !== null) return;
    this.compareGroup = null;
    this.show(loaded);
  }

  /** Feeds a run's packets into the live answers; `modelFor` names each answer's model. */
  private applyPackets(packets: Packet[], modelFor: (modelIndex: number) => ModelRef | undefined): void {
    for (const packet of packets) {
      if (packet.obj.type === 'message_start') {
        const model = modelFor(packet.placement.modelIndex);
        this.liveAnswers.push(
          createLiveAnswer(packet.obj.assistantMessageId, packet.placement.modelIndex, model?.modelId ?? '', model),
        );
        continue;
      }
      const answer = this.liveAnswers.find((a) => a.modelIndex === packet.placement.modelIndex);
      if (!answer) continue;
      applyPacket(answer, packet);
      if (packet.obj.type === 'warning') {
        this.answerWarnings = { ...this.answerWarnings, [answer.messageId]: [...answer.warnings] };
      }
    }
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

  /**
   * The request that answered `userMessageId` (its final cycle), as it was sent: recorded by the
   * agent worker at send time, not recomputed.
   */
  lastRequest(userMessageId: string): ReturnType<AgentClient['lastRequest']> {
    return this.deps.agent.lastRequest(userMessageId);
  }

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

  /**
   * `extras`: attached files (kept on the user message) and, for a new chat, its project.
   * `onStored` runs once the question is stored: only then may the composer let go of the text
   * and files, since a refused send (another tab answering, the chat deleted) stores nothing.
   */
  async send(
    text: string,
    models: ModelRef[],
    extras: { attachments?: Attachment[]; projectId?: string; agentId?: string | null; onStored?: () => void } = {},
  ): Promise<void> {
    const trimmed = text.trim();
    if (trimmed.length === 0) return;
    const { onStored, ...request } = extras;
    const pending = optimisticUserMessage(trimmed, this.session?.id ?? null, this.chain.at(-1)?.id ?? null);
    if (pending.role === 'user' && request.attachments) pending.attachments = request.attachments;
    await this.run({ text: trimmed, models, ...request }, pending, onStored);
  }

  private async run(
    request: {
      text: string;
      models: ModelRef[];
      retryOf?: string;
      parentId?: string | null;
      attachments?: Attachment[];
      projectId?: string;
      agentId?: string | null;
      fuseOf?: string[];
    },
    pendingUser: ChatMessageSimple | null,
    onStored?: () => void,
  ): Promise<void> {
    if (this.isRunning) return;
    const { models } = request;
    const runId = this.deps.newRunId();
    this.runId = runId;
    this.ownRunIds.add(runId);
    this.isRunning = true;
    this.error = null;
    this.pendingUser = pendingUser;
    this.liveAnswers = [];
    this.remoteRunId = null;
    this.compareGroup = null;
    this.focusedMessageId = null;
    let createdSessionId: SessionId | null = null;
    let isStored = false;
    const markStored = (): void => {
      if (isStored) return;
      isStored = true;
      onStored?.();
    };

    const onPackets = (packets: Packet[]): void => {
      for (const packet of packets) {
        if (packet.obj.type !== 'message_start') continue;
        // The worker starts an answer only after the question is stored.
        markStored();
        if (createdSessionId === null && this.session === null && !this.isTemporary) {
          // A new chat exists from its first packet on: its address can be bookmarked or reopened.
          createdSessionId = packet.obj.sessionId as SessionId;
          this.deps.onSessionCreated(createdSessionId);
        }
        createdSessionId ??= packet.obj.sessionId as SessionId;
      }
      this.applyPackets(packets, (index) => models[index]);
    };

    let error: string | null = null;
    let loaded: LoadedChat | undefined;
    let compareGroup: CompareGroup | null = null;
    let isNew = false;
    try {
      // Structured clone cannot copy reactive proxies: send plain data across to the worker.
      const result = await this.deps.agent.send(
        runId,
        $state.snapshot({ sessionId: this.session?.id ?? null, ...(this.isTemporary ? { isTemporary: true } : {}), ...request }),
        onPackets,
        this.confirm,
      );
      if (result.ok) markStored();
      else error = result.error.message;
      const sessionId = result.ok ? (result.value.sessionId as SessionId) : (createdSessionId ?? this.session?.id ?? null);
      if (sessionId) {
        isNew = this.session?.id !== sessionId;
        this.loadToken++;
        loaded = (result.ok ? await this.loadTurnEnd(sessionId) : null) ?? (await this.load(sessionId));
        if (!result.ok) {
          const runAnswerIds = this.liveAnswers.map((answer) => answer.messageId);
          loaded = { ...loaded, chain: closeUnsavedAnswers(loaded.chain, runAnswerIds) };
        }
      }
      if (result.ok && result.value.assistantMessageIds.length > 1) {
        compareGroup = await this.loadCompareGroup(result.value.userMessageId, result.value.assistantMessageIds);
      }
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught);
    }
    // The saved turn replaces the live one in a single step.
    if (loaded) this.show(loaded);
    this.compareGroup = compareGroup;
    this.error = error;
    this.pendingUser = null;
    this.liveAnswers = [];
    this.isRunning = false;
    this.runId = null;
    this.answerConfirmation(false);
    if (isNew && loaded?.session && !this.isTemporary) this.deps.onSessionCreated(loaded.session.id);
    if (isNew && loaded?.session && this.isTemporary) void this.showTemporaryTitle(loaded.session.id);
  }

  /**
   * A new temporary chat's model-written title, shown once the worker has it (no database to
   * watch for it, and it is never stored).
   */
  private async showTemporaryTitle(sessionId: SessionId): Promise<void> {
    try {
      const title = await this.deps.agent.temporaryChatTitle(sessionId);
      if (title !== null && this.isTemporary && this.session?.id === sessionId) this.session = { ...this.session, title };
    } catch (caught) {
      console.warn('Could not read the temporary chat\'s title:', caught);
    }
  }

  /* ---- Message actions: edit, regenerate, branches, compare, flags. ---- */

  /**
   * Sends an edited question as a sibling of `messageId` (a new branch): same parent, new text.
   * The old branch stays reachable through the branch switcher.
   */
  async edit(messageId: string, text: string, models: ModelRef[]): Promise<void> {
    const trimmed = text.trim();
    const index = this.chain.findIndex((m) => m.id === messageId);
    const original = this.chain[index];
    if (trimmed.length === 0 || original?.role !== 'user' || this.isRunning) return;
    this.chain = this.chain.slice(0, index);
    const pending = optimisticUserMessage(trimmed, this.session?.id ?? null, original.parentId);
    await this.run({ text: trimmed, models, parentId: original.parentId }, pending);
  }

  /** Answers the question of `answerId` again with `model` (regenerate, retry with another model). */
  async regenerate(answerId: string, model: ModelRef): Promise<void> {
    const index = this.chain.findIndex((m) => m.id === answerId);
    const question = this.chain[index - 1];
    if (index < 1 || question?.role !== 'user' || this.isRunning) return;
    this.chain = this.chain.slice(0, index);
    await this.run({ text: question.text, models: [model], retryOf: question.id }, null);
  }

  /**
   * Where a message sits among its siblings (for the ‹ n/m › switcher). Every question and
   * answer row asks as it is drawn; a message of the shown chain whose parent has one child
   * is answered from the session's forks, read once per version of the session, so scrolling a
   * long chat reads nothing per row.
   */
  async siblingsOf(messageId: string): Promise<SiblingPosition> {
    const session = this.session;
    const message = this.shownMessage(messageId);
    if (session !== null && message !== undefined && message.sessionId === session.id) {
      const forked = await this.forkedParents(session).catch(() => null);
      if (forked !== null && !forked.has(message.parentId))
        return { index: 0, count: 1, ids: [message.id] };
    }
    return this.stores.messages.siblings(messageId as MessageId);
  }

  private forkedParents(session: Session): Promise<ReadonlySet<string | null>> {
    const known = this.forks;
    if (known !== null && known.sessionId === session.id && known.version === session.version) return known.parents;
    const parents = this.stores.messages
      .forkedParents(session.id)
      // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a lookup, never rendered
      .then((found): ReadonlySet<string | null> => new Set<string | null>(found));
    this.forks = { sessionId: session.id, version: session.version, parents };
    // A failed read is not kept: the next row asks again.
    parents.catch(() => {
      if (this.forks?.parents === parents) this.forks = null;
    });
    return parents;
  }

  private shownMessage(messageId: string): ChatMessageSimple | undefined {
    if (this.chainById?.chain !== this.chain)
      // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a lookup, never rendered
      this.chainById = { chain: this.chain, byId: new Map(this.chain.map((message) => [message.id, message])) };
    return this.chainById.byId.get(messageId);
  }

  /** Shows the previous (-1) or next (+1) sibling branch of `messageId`. */
  async showSibling(messageId: string, offset: -1 | 1): Promise<void> {
    if (this.isRunning) return;
    const target = pickSibling(await this.siblingsOf(messageId), offset);
    if (target !== null) await this.showBranch(target);
  }

  /** Makes the branch through `messageId` the visible one and reloads the chain. */
  async showBranch(messageId: string): Promise<void> {
    await this.stores.messages.switchBranch(messageId as MessageId);
    this.compareGroup = null;
    await this.reload();
  }

  /**
   * Compare mode: asks `model` to merge the compared answers into one, streamed like any
   * answer and saved as another answer to the same question (a new branch) that names them.
   */
  async fuse(model: ModelRef): Promise<void> {
    const group = this.compareGroup;
    if (group === null || this.isRunning) return;
    const answerIds = selectMergeableAnswers(group.answers).map((answer) => answer.messageId);
    const index = this.chain.findIndex((m) => m.id === group.userMessageId);
    const question = this.chain[index];
    if (answerIds.length < 2 || question?.role !== 'user') return;
    // The visible chain ends at the question while the merged answer streams in.
    this.chain = this.chain.slice(0, index + 1);
    await this.run({ text: question.text, models: [model], retryOf: question.id, fuseOf: answerIds }, null);
  }

  /** Compare mode: keep this answer's branch and close the side-by-side view. */
  async continueWith(answerId: string): Promise<void> {
    if (this.isRunning) return;
    await this.showBranch(answerId);
  }

  /** Pins a message (always in the context) or excludes it (never in the context). */
  async setFlags(messageId: string, flags: { isPinned?: boolean; isExcluded?: boolean }): Promise<void> {
    const message = this.chain.find((m) => m.id === messageId) ?? (await this.stores.messages.get(messageId as MessageId));
    if (!message) return;
    const updated: ChatMessageSimple = { ...message, ...flags, updatedAt: Date.now() };
    await this.stores.messages.put(updated);
    this.chain = this.chain.map((m) => (m.id === messageId ? updated : m));
    if (this.compareGroup && updated.role === 'assistant') {
      this.compareGroup = {
        ...this.compareGroup,
        answers: this.compareGroup.answers.map((a) =>
          a.messageId === messageId ? { ...a, isPinned: updated.isPinned, isExcluded: updated.isExcluded } : a,
        ),
      };
    }
  }

  /**
   * Deletes a message and everything below it (a question takes its answers with it), then
   * reloads the chain: storage moves the visible branch to what remains.
   */
  async delete(messageId: string): Promise<void> {
    if (this.isRunning) return;
    await this.stores.messages.deleteBranch(messageId as MessageId);
    if (this.compareGroup) {
      const isQuestion = this.compareGroup.userMessageId === messageId;
      const answers = this.compareGroup.answers.filter((a) => a.messageId !== messageId);
      // Side by side needs two answers; below that the chain shows the one left.
      this.compareGroup = isQuestion || answers.length < 2 ? null : { ...this.compareGroup, answers };
    }
    await this.reload();
  }

  private async loadCompareGroup(userMessageId: string, answerIds: string[]): Promise<CompareGroup | null> {
    const answers: AnswerView[] = [];
    for (const [modelIndex, id] of answerIds.entries()) {
      const message = await this.stores.messages.get(id as MessageId);
      if (message?.role !== 'assistant') continue;
      answers.push({ ...answerFromMessage(message, message.model?.modelId ?? ''), modelIndex });
    }
    return answers.length > 1 ? { userMessageId, answers } : null;
  }

  async stop(): Promise<void> {
    if (this.runId) await this.deps.agent.stop(this.runId);
  }

  /** Compare mode: stops the answer of one model; the other columns keep streaming. */
  async stopModel(modelIndex: number): Promise<void> {
    if (this.runId) await this.deps.agent.stopModel(this.runId, modelIndex);
  }

  dispose(): void {
    this.follow(null);
  }

  reset(): void {
    this.follow(null);
    this.session = null;
    this.shownChains++;
    this.chain = [];
    this.pendingUser = null;
    this.liveAnswers = [];
    this.compareGroup = null;
    this.focusedMessageId = null;
    this.error = null;
  }
}

function hasStreamingAnswer(chain: readonly ChatMessageSimple[]): boolean {
  return chain.some((message) => message.role === 'assistant' && message.status === 'streaming');
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
