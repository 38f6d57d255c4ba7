import type { AssembledContext, ContextKind, DropReason, Reduction, ReductionReason } from '../../core/context';
import { selectCacheBreakpoints } from '../../core/context/cache-breakpoints';
import type { LlmMessage } from '../../core/model';

export type { AssembledContext, ContextKind, ContextMessage, DroppedItem } from '../../core/context';

/** The inspector's one- or two-letter labels (the context engine's names for its parts). */
export const KIND_LETTERS: Readonly<Record<ContextKind, string>> = {
  system: 'S',
  custom_agent: 'CA',
  project_files: 'P',
  file: 'F',
  user: 'U',
  assistant: 'A',
  tool_call: 'TC',
  tool_result: 'TR',
  reminder: 'R',
  skipped: 'M',
  forgotten_files: 'M',
  summary: 'SUM',
};

export const KIND_NAMES: Readonly<Record<ContextKind, string>> = {
  system: 'System prompt',
  custom_agent: 'Custom agent',
  project_files: 'Project files',
  file: 'Files',
  user: 'User',
  assistant: 'Assistant',
  tool_call: 'Tool call',
  tool_result: 'Tool result',
  reminder: 'Reminder',
  skipped: 'Marker: skipped messages',
  forgotten_files: 'Marker: forgotten files',
  summary: 'Summary of earlier messages',
};

export const DROP_REASONS: Readonly<Record<DropReason, string>> = {
  excluded: 'excluded from context by you',
  strategy: "outside the agent's history strategy",
  budget: 'did not fit the token budget',
  project_search_mode: 'project too large to inline: searched instead',
  summarised: 'stands in the summary',
};

export const REDUCTION_REASONS: Readonly<Record<ReductionReason, string>> = {
  turn_over_budget: 'the newest turn did not fit the token budget',
  clear_threshold: "the context passed the agent's threshold for clearing old tool results",
};

/** One line for the inspector: which result, what was done to it, how much it saved, and why. */
export function describeReduction(reduction: Reduction): string {
  const what: string[] = [];
  const dropped = reduction.droppedDocuments ?? [];
  if (dropped.length > 0) {
    what.push(`${dropped.length} lower-ranked ${dropped.length === 1 ? 'source' : 'sources'} left out (${dropped.map((n) => `[${n}]`).join(' ')})`);
  }
  if (reduction.kind === 'truncated') what.push('truncated');
  if (reduction.kind === 'cleared') what.push('result cleared');
  return `${reduction.toolName}: ${what.join(', ')}, ${formatTokens(reduction.tokensBefore)} → ${formatTokens(reduction.tokensAfter)} tokens, because ${REDUCTION_REASONS[reduction.reason]}`;
}

/** "950", "12.3k", "128k", "1.05M": short enough for the composer's meter. */
export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(Math.round(tokens));
  if (tokens < 1_000_000) {
    const thousands = tokens / 1000;
    return `${thousands >= 100 || Number.isInteger(thousands) ? Math.round(thousands) : thousands.toFixed(1)}k`;
  }
  const millions = tokens / 1_000_000;
  return `${Number.isInteger(millions) ? millions : millions.toFixed(2)}M`;
}

export interface KindTotal {
  kind: ContextKind;
  letter: string;
  tokens: number;
  /** Share of the context window, 0..1, for the stacked bar. */
  share: number;
}

/** Tokens per kind in order of first appearance, with each kind's share of the window. */
export function summarizeByKind(context: Pick<AssembledContext, 'messages' | 'budget'>): KindTotal[] {
  const totals = new Map<ContextKind, number>();
  for (const message of context.messages) totals.set(message.kind, (totals.get(message.kind) ?? 0) + message.tokens);
  const window = Math.max(1, context.budget.contextWindow);
  return [...totals].map(([kind, tokens]) => ({ kind, letter: KIND_LETTERS[kind], tokens, share: tokens / window }));
}

export function isOverBudget(context: Pick<AssembledContext, 'totalTokens' | 'budget'>): boolean {
  return context.totalTokens > context.budget.inputBudget;
}

export interface SendBlockInput {
  hasModel: boolean;
  isOnline: boolean;
  /** Every chosen model runs on this machine (Ollama, LM Studio), so offline is fine. */
  isLocalOnly: boolean;
  isOverBudget: boolean;
  isDraftEmpty: boolean;
}

/** Why Send is disabled, in the order a person should fix things; '' when it is enabled. */
export function explainSendBlock(input: SendBlockInput): string {
  if (!input.hasModel) return 'Add a provider in Settings to start chatting.';
  if (!input.isOnline && !input.isLocalOnly) return 'You are offline. Reconnect to send.';
  if (input.isOverBudget) return "The conversation is over the model's context budget. Start a new chat or exclude messages.";
  if (input.isDraftEmpty) return 'Type a message.';
  return '';
}

/** The text of one sent message as the inspector shows it: every part, tool calls as JSON. */
export function renderMessageText(message: LlmMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => {
      switch (part.type) {
        case 'text':
        case 'reasoning':
          return part.type === 'reasoning' ? `[reasoning] ${part.text}` : part.text;
        case 'image':
          return `[image${part.mediaType ? ` ${part.mediaType}` : ''}]`;
        case 'tool-call':
          return `[call ${part.toolName}] ${JSON.stringify(part.input)}`;
        case 'tool-result':
          return `[result ${part.toolName}${part.isError ? ', error' : ''}] ${part.output}`;
      }
    })
    .join('\n');
}

/**
 * The messages where a stable prefix of the request ends: Anthropic requests mark them for
 * caching; OpenAI and Gemini cache a repeated start without marks.
 */
export function findCachedPrefixEnds(context: AssembledContext): ReadonlySet<number> {
  return new Set(selectCacheBreakpoints(context.messages));
}
