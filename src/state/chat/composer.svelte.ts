import type { Agent, AgentId, Attachment, GenerationSettings, ModelRef, Project, ProjectId, Session, SessionId } from '../../core/model';
import type { SessionStore } from '../../core/ports';
import type { AgentClient } from '../../workers/agent/agent.client';
import type { AssembledContext, WorkerError } from '../../workers/agent/agent.api';
import { isOverBudget } from './context-labels';
import { sameModel } from './model-refs';
import { isEmptyGeneration } from '../../core/model';

export { isLocalProvider, sameModel } from './model-refs';
import type { NoticesState } from '../shell/notices.svelte';

/** Compare mode: at most this many models answer one question (the worker enforces it too). */
export const MAX_COMPARE_MODELS = 3;
/** The context preview waits for a pause in typing. */
const PREVIEW_DEBOUNCE_MS = 350;
/**
 * The draft's own count is made by the agent worker (the tokenizer's ranks would otherwise load
 * and run on the UI thread at the first keystroke): one request per short pause in typing.
 */
const DRAFT_COUNT_DEBOUNCE_MS = 60;
/**
 * A preview that failed for a reason that may pass (the worker still starting, a store busy)
 * is asked again on its own, so the Context figure does not stay a dash until something changes.
 */
const PREVIEW_RETRY_DELAYS_MS = [500, 2_000, 8_000];
const TRANSIENT_PREVIEW_ERRORS = new Set(['worker_setup', 'internal', 'unknown', 'blocked', 'version_change']);

export interface ComposerDeps {
  agent: Pick<AgentClient, 'previewContext' | 'countTokens'>;
  /** Where the open chat's choices are saved (a temporary chat's in the worker's memory). */
  sessions: Pick<SessionStore, 'update'>;
  notices: NoticesState;
}

/**
 * The composer's choices for the open chat (models, agent, draft) and what they would cost:
 * the draft's tokens and the whole context, both counted by the agent worker, the context assembled by the worker's context
 * engine exactly as the next request would be.
 */
export class ComposerState {
  draft = $state('');
  models = $state<ModelRef[]>([]);
  /** The agent of the open chat, or the one a new chat will take. */
  agentId = $state<AgentId | null>(null);
  /** An empty draft costs nothing: the meter shows 0 from the start, not a dash. */
  draftTokens = $state<number | null>(0);
  /** What would be sent now; null until computed or when no model is chosen. */
  preview = $state<AssembledContext | null>(null);
  previewError = $state<WorkerError | null>(null);
  isOnline = $state(typeof navigator === 'undefined' ? true : navigator.onLine);
  private sessionId: SessionId | null = null;
  /** The project a new chat starts in (an open chat has its own). */
  private projectId: ProjectId | null = null;
  /** The files attached in the composer, sent with the draft. */
  private attachments: Attachment[] = [];
  /** The open chat's id, or `new:<project id>` for a new chat (in a project or not). */
  private target: string | null = null;
  private countTimer: ReturnType<typeof setTimeout> | undefined;
  private countToken = 0;
  private isCountFailing = false;
  private previewTimer: ReturnType<typeof setTimeout> | undefined;
  private previewToken = 0;
  /** Failed attempts at the current preview, each retried after the next delay. */
  private previewRetries = 0;
  private readonly onOnline = (): void => {
    this.isOnline = navigator.onLine;
  };

  constructor(private readonly deps: ComposerDeps) {
    if (typeof window !== 'undefined') {
      window.addEventListener('online', this.onOnline);
      window.addEventListener('offline', this.onOnline);
    }
  }

  readonly isOverBudget: boolean = $derived(
    this.previewError?.code === 'context_too_large' || (this.preview !== null && isOverBudget(this.preview)),
  );

  /**
   * Follows the open chat: its models and agent, or the defaults for a new chat, which are the
   * project's (its default agent and model) when the new chat starts in one.
   */
  follow(
    session: Session | null,
    available: ModelRef[],
    agents: readonly Agent[],
    defaultModel: ModelRef | null = null,
    newChatProject: Pick<Project, 'id' | 'defaultAgentId' | 'defaultModel'> | null = null,
  ): void {
    const target = session ? session.id : `new:${newChatProject?.id ?? ''}`;
    const isNewTarget = target !== this.target;
    this.target = target;
    this.sessionId = session?.id ?? null;
    this.projectId = session ? null : (newChatProject?.id ?? null);
    const keep = (models: readonly ModelRef[]) => models.filter((m) => available.some((a) => sameModel(a, m)));
    let candidates = this.models;
    if (isNewTarget) {
      // Another chat: the old preview must not show while the new one is computed.
      this.preview = null;
      this.previewError = null;
      const projectAgentId = newChatProject?.defaultAgentId ?? null;
      const projectAgent = agents.find((a) => a.id === projectAgentId && !a.isBuiltIn);
      this.agentId = session ? session.agentId : (projectAgent?.id ?? null);
      const agentModel = agents.find((a) => a.id === this.agentId)?.defaultModel;
      const projectModel = newChatProject?.defaultModel ?? null;
      candidates = session ? session.models : projectModel ? [projectModel] : agentModel ? [agentModel] : [];
    }
    const kept = keep(candidates);
    const preferred = defaultModel ? keep([defaultModel]) : [];
    this.models = kept.length > 0 ? kept : preferred.length > 0 ? preferred : available.slice(0, 1);
    this.schedulePreview();
  }

  setDraft(text: string): void {
    this.draft = text;
    this.countDraft();
    this.schedulePreview();
  }

  /** The composer's attached files changed: the preview carries them as the message will. */
  setAttachments(attachments: Attachment[]): void {
    this.attachments = attachments;
    this.schedulePreview();
  }

  /** Replaces model `index` (or adds one in compare mode); saved on the open chat. */
  async setModels(models: ModelRef[]): Promise<void> {
    this.models = plainModels(models).slice(0, MAX_COMPARE_MODELS);
    this.schedulePreview();
    const sessionId = this.sessionId;
    if (sessionId && this.models.length > 0) {
      await this.deps.notices.guard('Could not save the chat’s model', () =>
        this.deps.sessions.update(sessionId, { models: plainModels(this.models) }),
      );
    }
  }

  /** Picks the agent: saved on the open chat; a new chat takes it with its first message. */
  async setAgent(agent: Agent, available: ModelRef[]): Promise<void> {
    this.agentId = agent.isBuiltIn ? null : agent.id;
    const preferred = agent.defaultModel;
    if (preferred && available.some((m) => sameModel(m, preferred))) this.models = [preferred];
    this.schedulePreview();
    const sessionId = this.sessionId;
    if (sessionId) {
      await this.deps.notices.guard('Could not change the chat’s agent', () =>
        this.deps.sessions.update(sessionId, { agentId: this.agentId, models: plainModels(this.models) }),
      );
    }
  }

  /**
   * The open chat's own generation settings over its agent's (none set: the agent's hold). The
   * answer length changes what the context keeps free, so the preview is computed again.
   */
  async setGenerationOverride(settings: GenerationSettings | undefined): Promise<void> {
    const sessionId = this.sessionId;
    if (!sessionId) return;
    const generationOverride = isEmptyGeneration(settings) ? undefined : settings;
    await this.deps.notices.guard('Could not save the chat’s generation settings', () =>
      this.deps.sessions.update(sessionId, { generationOverride }),
    );
    this.schedulePreview();
  }

  /**
   * `sent` is stored as a message: clear the draft (the context is looked at again once the turn
   * is saved), unless the person already typed something else meanwhile.
   */
  clearSent(sent: string): void {
    if (this.draft !== sent) return;
    this.draft = '';
    this.countDraft();
  }

  /** Recomputes the preview soon (after typing pauses, or after a turn was saved). */
  schedulePreview(): void {
    clearTimeout(this.previewTimer);
    this.previewRetries = 0;
    this.previewTimer = setTimeout(() => void this.refreshPreview(), PREVIEW_DEBOUNCE_MS);
  }

  /** After a failure that may pass: the same preview again, a little later each time. */
  private retryPreview(error: WorkerError): void {
    const delay = PREVIEW_RETRY_DELAYS_MS[this.previewRetries];
    if (!TRANSIENT_PREVIEW_ERRORS.has(error.code) || delay === undefined) return;
    this.previewRetries += 1;
    clearTimeout(this.previewTimer);
    this.previewTimer = setTimeout(() => void this.refreshPreview(), delay);
  }

  async refreshPreview(): Promise<void> {
    const model = this.models[0];
    const token = ++this.previewToken;
    if (!model) {
      this.preview = null;
      this.previewError = null;
      return;
    }
    try {
      const result = await this.deps.agent.previewContext({
        sessionId: this.sessionId,
        model: { providerId: model.providerId, modelId: model.modelId },
        text: this.draft,
        attachments: this.attachments,
        agentId: this.agentId,
        projectId: this.projectId,
      });
      if (token !== this.previewToken) return;
      this.preview = result.ok ? result.value : null;
      this.previewError = result.ok ? null : result.error;
      if (!result.ok) this.retryPreview(result.error);
    } catch (error) {
      if (token !== this.previewToken) return;
      this.preview = null;
      this.previewError = { code: 'internal', message: error instanceof Error ? error.message : String(error) };
      this.retryPreview(this.previewError);
    }
  }

  /** Counts the draft after a short pause; only the newest draft's count is shown. */
  private countDraft(): void {
    clearTimeout(this.countTimer);
    const token = ++this.countToken;
    if (this.draft === '') {
      this.draftTokens = 0;
      return;
    }
    this.countTimer = setTimeout(() => void this.refreshDraftCount(token), DRAFT_COUNT_DEBOUNCE_MS);
  }

  private async refreshDraftCount(token: number): Promise<void> {
    let failure: unknown;
    try {
      const result = await this.deps.agent.countTokens(this.draft);
      if (token !== this.countToken) return;
      if (result.ok) {
        this.draftTokens = result.value;
        this.isCountFailing = false;
        return;
      }
      failure = new Error(result.error.message);
    } catch (error) {
      if (token !== this.countToken) return;
      failure = error;
    }
    // Said once, not at every pause in typing; the count shows as unknown until one succeeds.
    if (!this.isCountFailing) this.deps.notices.report(failure, 'Could not count the draft’s tokens');
    this.isCountFailing = true;
    this.draftTokens = null;
  }

  dispose(): void {
    clearTimeout(this.previewTimer);
    clearTimeout(this.countTimer);
    if (typeof window !== 'undefined') {
      window.removeEventListener('online', this.onOnline);
      window.removeEventListener('offline', this.onOnline);
    }
  }
}

/**
 * Plain copies: rune state is a proxy, which neither postMessage nor IndexedDB can clone.
 */
export function plainModels(models: readonly ModelRef[]): ModelRef[] {
  return models.map((m) => ({ providerId: m.providerId, modelId: m.modelId }));
}
