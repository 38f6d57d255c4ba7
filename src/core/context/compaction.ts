import {
  answerText,
  type ChatMessageSimple,
  type ChatSummary,
  type LlmMessage,
  type MessageId,
  type ModelInfo,
} from '../model';
import type { TokenCounter } from '../ports';
import { prepareEnv } from './assemble-context';
import { allocateBudget, resolveReservedOutput, resolveUploadShare, splitInputBudget } from './budget';
import { historyPart } from './parts/history.part';
import { cutToTokens } from './reduce-turn';
import { findActiveSummary } from './summary-block';
import { createTokenMeter } from './token-meter';
import type { ContextInput } from './types';

/** A saved turn that leaves the history above this share of its budget starts a compaction. */
export const COMPACTION_THRESHOLD = 0.75;
/** The newest turns making up at least this share of the history stay verbatim. */
export const KEEP_VERBATIM_RATIO = 0.25;
/** The summary's own length: at most this many tokens, and at most a quarter of its model's window. */
export const SUMMARY_MAX_OUTPUT_TOKENS = 1024;
const SUMMARY_OUTPUT_WINDOW_RATIO = 0.25;
/** One message may take at most this share of the summariser's input, so several turns fit. */
const MESSAGE_SHARE_OF_SUMMARY_INPUT = 0.5;

export const SUMMARY_INSTRUCTIONS =
  'You compact long conversations. Write a concise summary of the conversation below so that it can ' +
  'replace it: keep facts, decisions, names, numbers, open questions and what the user wants, in the ' +
  'order they came up. Tool use appears as "[Used tools: …]"; mention what was looked up when it ' +
  'matters. If a summary so far is given, your summary replaces it: include what it says that still ' +
  'matters. Reply with the summary only, no preamble.';

export interface CompactionPlan {
  /** The summary this one continues (its text goes into the request), or null. */
  previous: ChatSummary | null;
  /** The messages since `previous` (or the start) to summarise, oldest first, excluded ones left out. */
  turns: ChatMessageSimple[];
  /** The history's tokens as the next request would send them (summary in place). */
  historyTokens: number;
  /** What the history may use (the input budget less the upload share). */
  historyBudget: number;
}

/** Tokens each message would take as history, by id (from the same prices the context uses). */
function measureHistory(input: ContextInput): { byId: Map<MessageId, number>; total: number; conversation: ChatMessageSimple[] } | null {
  const prepared = prepareEnv(input);
  if (!prepared.ok) return null;
  // Everything is history once the turn is saved: the next question will be the newest turn.
  const env = { ...prepared.value, anchorIndex: prepared.value.conversation.length };
  const byId = new Map<MessageId, number>();
  let total = 0;
  for (const block of historyPart.collect(env).blocks) {
    if (block.isUpload) continue;
    total += block.tokens;
    if (block.sourceId !== undefined) byId.set(block.sourceId, (byId.get(block.sourceId) ?? 0) + block.tokens);
  }
  return { byId, total, conversation: env.conversation };
}

/**
 * Whether a chain just saved (ending with an answer) should be compacted, and which messages
 * the new summary adds: everything since the active summary except the newest turns that make
 * up at least KEEP_VERBATIM_RATIO of the history, cut where a question starts. `force` ("Compact
 * now") skips the threshold, not the share kept verbatim. Null when there is nothing to add.
 */
export function planCompaction(input: ContextInput, options: { force?: boolean } = {}): CompactionPlan | null {
  const measured = measureHistory(input);
  if (measured === null) return null;
  const { byId, total, conversation } = measured;
  const budget = allocateBudget(input.model, resolveReservedOutput(input.model, input.reservedOutputTokens), 0);
  const { historyBudget } = splitInputBudget(budget.inputBudget, resolveUploadShare(input.agent));
  if (options.force !== true && total <= historyBudget * COMPACTION_THRESHOLD) return null;

  const active = findActiveSummary(conversation, input.summaries);
  const start = (active?.lastIndex ?? -1) + 1;
  const mustKeep = total * KEEP_VERBATIM_RATIO;
  // The newest question always stays; older questions are cut points while what follows them
  // is still less than the share to keep.
  let cut = -1;
  let tail = 0;
  for (let index = conversation.length - 1; index > start; index--) {
    const message = conversation[index];
    if (message === undefined) continue;
    tail += byId.get(message.id) ?? 0;
    if (message.role !== 'user') continue;
    cut = index;
    if (tail >= mustKeep) break;
  }
  if (cut <= start) return null;
  return {
    previous: active?.summary ?? null,
    turns: conversation.slice(start, cut),
    historyTokens: total,
    historyBudget,
  };
}

/** Distinct tool names of an answer, in the order first used. */
function toolNames(message: ChatMessageSimple): string[] {
  if (message.role !== 'assistant') return [];
  const names: string[] = [];
  for (const step of message.steps) for (const call of step.toolCalls) if (!names.includes(call.name)) names.push(call.name);
  return names;
}

/** One message as the summariser reads it: who said what, files by name, tool use in a line. */
export function describeForSummary(message: ChatMessageSimple): string {
  if (message.role === 'user') {
    const files = message.attachments.map((file) => file.name);
    return `User: ${message.text}${files.length > 0 ? `\n[Attached: ${files.join(', ')}]` : ''}`;
  }
  const tools = toolNames(message);
  const text = answerText(message);
  return `Assistant: ${text}${tools.length > 0 ? `${text.length > 0 ? '\n' : ''}[Used tools: ${tools.join(', ')}]` : ''}`;
}

export interface SummaryRequest {
  messages: LlmMessage[];
  maxOutputTokens: number;
  /** The messages the request covers, oldest first: all of the plan's, or as many as fit. */
  turns: ChatMessageSimple[];
  /** Tokens of the request's messages, as counted for the summariser's encoding. */
  inputTokens: number;
  inputBudget: number;
}

const CUT_NOTE = ' […]';

/**
 * The summariser's request: the previous summary and the turns since, within its model's window.
 * Whole turns (a question with its answers) go in oldest first while they fit; a message longer
 * than half the room is cut with a marker; turns that do not fit are left for the next summary
 * (they stay verbatim). Null when not even the first message fits.
 */
export function buildSummaryRequest(
  plan: Pick<CompactionPlan, 'previous' | 'turns'>,
  model: ModelInfo,
  counter: TokenCounter,
): SummaryRequest | null {
  const meter = createTokenMeter(counter, model.encoding);
  const maxOutputTokens = Math.max(
    1,
    Math.min(SUMMARY_MAX_OUTPUT_TOKENS, model.maxOutputTokens, Math.floor(model.contextWindow * SUMMARY_OUTPUT_WINDOW_RATIO)),
  );
  const { inputBudget } = allocateBudget(model, maxOutputTokens, 0);
  const head = plan.previous !== null ? `Summary so far:\n${plan.previous.text.trim()}\n\nConversation since:\n` : 'Conversation:\n';
  const fixed = meter.priceMessage(meter.countText(SUMMARY_INSTRUCTIONS)) + meter.priceMessage(meter.countText(head));
  let used = fixed;
  const perMessage = Math.floor((inputBudget - fixed) * MESSAGE_SHARE_OF_SUMMARY_INPUT);
  const lines: string[] = [];
  const covered: ChatMessageSimple[] = [];
  // Turns: a question with the answers after it.
  const turns: ChatMessageSimple[][] = [];
  for (const message of plan.turns) {
    if (message.role === 'user' || turns.length === 0) turns.push([message]);
    else turns.at(-1)?.push(message);
  }
  for (const turn of turns) {
    const texts = turn.map((message) => {
      const text = describeForSummary(message);
      const cut = cutToTokens(text, Math.max(0, perMessage - meter.countText(CUT_NOTE)), meter);
      return cut === text ? text : `${cut}${CUT_NOTE}`;
    });
    const cost = texts.reduce((sum, text) => sum + meter.countText(`${text}\n\n`), 0);
    if (used + cost > inputBudget || texts.some((text) => text === CUT_NOTE)) break;
    used += cost;
    lines.push(...texts);
    covered.push(...turn);
  }
  if (covered.length === 0) return null;
  const transcript = `${head}${lines.join('\n\n')}`;
  const messages: LlmMessage[] = [
    { role: 'system', content: SUMMARY_INSTRUCTIONS },
    { role: 'user', content: transcript },
  ];
  const inputTokens = meter.priceMessage(meter.countText(SUMMARY_INSTRUCTIONS)) + meter.priceMessage(meter.countText(transcript));
  return { messages, maxOutputTokens, turns: covered, inputTokens, inputBudget };
}

/** The ids a summary ending at `lastMessageId` stands for: the chain from its root through it. */
export function coveredIdsThrough(chain: readonly ChatMessageSimple[], lastMessageId: MessageId): MessageId[] {
  const index = chain.findIndex((message) => message.id === lastMessageId);
  return index < 0 ? [] : chain.slice(0, index + 1).map((message) => message.id);
}

/** The summary a chain's newest "Undo compaction" takes back (the active one), if any. */
export function findUndoableSummary(chain: readonly ChatMessageSimple[], summaries: readonly ChatSummary[]): ChatSummary | null {
  return findActiveSummary(chain, summaries)?.summary ?? null;
}
