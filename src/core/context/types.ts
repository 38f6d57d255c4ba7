import type {
  Agent,
  AssistantStep,
  ChatMessageSimple,
  ChatSummary,
  HistoryStrategy,
  LlmMessage,
  MessageId,
  ModelInfo,
  Project,
  ProjectFile,
  ProviderKind,
  ToolDefinition,
} from '../model';
import type { Clock, TokenCounter } from '../ports';

/** What a message in the assembled context is, for the budget and the context inspector. */
export type ContextKind =
  | 'system'
  | 'custom_agent'
  | 'project_files'
  | 'file'
  | 'user'
  | 'assistant'
  | 'tool_call'
  | 'tool_result'
  | 'reminder'
  | 'skipped'
  | 'forgotten_files'
  | 'summary';

export type ProjectMode = 'inline' | 'search';

/** One message as sent, with what it is and what it costs. */
export interface ContextMessage {
  kind: ContextKind;
  tokens: number;
  message: LlmMessage;
  /** The stored message it was rendered from, when there is one. */
  sourceId?: MessageId;
  /** A short human note for the inspector, e.g. "replaces the system prompt". */
  label?: string;
  /** A summary block: the stored messages it stands for, oldest first. */
  summaryOf?: MessageId[];
}

/** A tool on offer this cycle; `usage` and `isSearch` come from the tool's own file. */
export type ContextTool = ToolDefinition & {
  /** When to use the tool, for the system prompt's tools section. */
  usage?: string;
  /** Search tools bring citation guidance and the citation reminder. */
  isSearch?: boolean;
};

export interface ContextProject {
  project: Project;
  files: ProjectFile[];
  /** Fit or search as the turn decided it for this model; decided here when omitted. */
  mode?: ProjectMode;
}

export interface ContextInput {
  /** The session's current chain, oldest first; the newest user message is the turn's anchor. */
  chain: ChatMessageSimple[];
  /** Steps already taken in the current turn and not yet stored (the agent loop's scratch). */
  turnSteps?: AssistantStep[];
  agent: Agent;
  project: ContextProject | null;
  /** The user's edited system prompt, or null for DEFAULT_SYSTEM_PROMPT. */
  systemPromptOverride: string | null;
  tools: ContextTool[];
  /** A search tool ran in this turn: citation reminder at the end until the turn is answered. */
  hasSearchRunInTurn: boolean;
  /** No tool may be called in this cycle: the reminder says so. */
  isLastCycle: boolean;
  model: ModelInfo;
  providerKind: ProviderKind;
  /** Tokens kept free for the answer; the model's max output when omitted. */
  reservedOutputTokens?: number;
  /** The session's strategy when it overrides the agent's. */
  historyStrategy?: HistoryStrategy;
  /** Per-model correction learned from provider usage (tokens/calibration.ts); 1 when omitted. */
  calibrationFactor?: number;
  /** For the `{{user.name}}` placeholder. */
  userName?: string;
  /**
   * Strips what the app added for display before an assistant message goes back to the model.
   * Defaults to removeDisplayArtifacts.
   */
  removeFromText?: (text: string) => string;
  /**
   * The session's stored summaries (compaction); the newest one not undone whose last message
   * is in this chain's history stands in for the messages it covers.
   */
  summaries?: readonly ChatSummary[];
  clock: Clock;
  tokenCounter: TokenCounter;
}

export interface ContextBudget {
  contextWindow: number;
  reservedOutputTokens: number;
  toolTokens: number;
  /** 95% of (window − reserved output) − tool definitions: what the messages may use. */
  inputBudget: number;
}

export type DropReason =
  | 'excluded'
  | 'strategy'
  | 'budget'
  | 'project_search_mode'
  /** Stands in the context as part of a summary block (compaction). */
  | 'summarised';

export interface DroppedItem {
  kind: ContextKind;
  reason: DropReason;
  tokens: number;
  sourceId?: MessageId;
  /** File names for dropped point-in-time files and project files. */
  fileNames?: string[];
}

/**
 * A tool result sent shorter than it is stored: sources left out or text truncated because the
 * newest turn did not fit, or cleared by the clear-tool-results strategy. What is stored stays
 * whole; only this request is affected.
 */
export type ReductionKind = 'sources_dropped' | 'truncated' | 'cleared';

export type ReductionReason = 'turn_over_budget' | 'clear_threshold';

export interface Reduction {
  kind: ReductionKind;
  reason: ReductionReason;
  toolCallId: string;
  toolName: string;
  /** Content tokens of the result (and the arguments, when cleared) as stored and as sent. */
  tokensBefore: number;
  tokensAfter: number;
  /** Citation numbers of the sources left out; the kept ones keep their numbers. */
  droppedDocuments?: number[];
}

/** How the input budget is shared between uploaded content and the rest of the history. */
export interface ContextShares {
  /** The agent's share (0..MAX_UPLOAD_SHARE) and the tokens it reserves for uploads. */
  uploadShare: number;
  uploadBudget: number;
  /** Tokens left for everything else. */
  historyBudget: number;
  /** Tokens sent: uploads (inline project files and attached files) and the rest. */
  uploadTokens: number;
  historyTokens: number;
}

export interface AssembledContext {
  messages: ContextMessage[];
  totalTokens: number;
  budget: ContextBudget;
  shares: ContextShares;
  dropped: DroppedItem[];
  /** Tool results sent shorter than stored, and why. */
  reductions: Reduction[];
  projectMode: ProjectMode | null;
  /** The first citation number free for a search result in this cycle (rule 5). */
  nextDocumentNumber: number;
}

export type RequiredPartName =
  | 'system'
  | 'custom_agent'
  | 'project_files'
  | 'pinned'
  | 'newest_turn'
  | 'history'
  | 'markers'
  | 'reminder';

export interface RequiredPart {
  part: RequiredPartName;
  tokens: number;
}

export type ContextError =
  | {
      code: 'file_too_large';
      message: string;
      fileName: string;
      tokens: number;
      limit: number;
    }
  | {
      code: 'context_too_large';
      message: string;
      required: number;
      available: number;
      parts: RequiredPart[];
    }
  | { code: 'no_user_message'; message: string };
