import type { ChatMessageSimple, UserMessage } from '../../core/model';
import { findGrownFrom } from '../../util/grown-from';
import { answerFromMessage, type AnswerView } from './answer-blocks';

/**
 * What the message list shows, row by row: questions, answers, and compare groups (several
 * models answering one question side by side). Pure, so the list's shape is unit-tested.
 */
export type ChatItem =
  | { kind: 'user'; key: string; message: UserMessage; isPending: boolean }
  | { kind: 'answer'; key: string; answer: AnswerView; isLive: boolean }
  | { kind: 'compare'; key: string; answers: AnswerView[]; isLive: boolean };

/** The answers one compare run saved under one question, shown together until one is chosen. */
export interface CompareGroup {
  userMessageId: string;
  answers: AnswerView[];
}

export interface ChatItemsInput {
  chain: readonly ChatMessageSimple[];
  pendingUser: ChatMessageSimple | null;
  liveAnswers: readonly AnswerView[];
  compareGroup: CompareGroup | null;
  /** Warnings shown on answers of this visit (a tool server down), kept once the answer is stored. */
  warnings?: Readonly<Record<string, readonly string[]>>;
}

/**
 * The row built for each stored message, with the warnings it was built with: a chain that only
 * grew (older messages read, a turn added) reuses its rows, so they are neither built nor drawn
 * again.
 */
export type ChatItemCache = WeakMap<
  ChatMessageSimple,
  { item: ChatItem; warnings: readonly string[] | undefined }
>;

function buildStoredItem(message: ChatMessageSimple, warnings: readonly string[] | undefined): ChatItem {
  if (message.role === 'user') return { kind: 'user', key: message.id, message, isPending: false };
  const answer = answerFromMessage(message, message.model?.modelId ?? '');
  answer.warnings = [...(warnings ?? [])];
  return { kind: 'answer', key: message.id, answer, isLive: false };
}

export function buildChatItems(input: ChatItemsInput, cache?: ChatItemCache): ChatItem[] {
  return [...buildStoredItems(input.chain, input, cache), ...buildUnsavedItems(input, new Set(input.chain.map((message) => message.id)))];
}

/** The rows of stored messages, in chain order (a compared answer shows as its compare group). */
function buildStoredItems(
  messages: readonly ChatMessageSimple[],
  input: Pick<ChatItemsInput, 'compareGroup' | 'warnings'>,
  cache?: ChatItemCache,
): ChatItem[] {
  const items: ChatItem[] = [];
  const { compareGroup } = input;
  for (const message of messages) {
    const isCompared =
      message.role === 'assistant' &&
      compareGroup !== null &&
      message.parentId === compareGroup.userMessageId &&
      compareGroup.answers.some((answer) => answer.messageId === message.id);
    if (isCompared) {
      items.push({ kind: 'compare', key: `compare-${compareGroup.userMessageId}`, answers: compareGroup.answers, isLive: false });
      continue;
    }
    const warnings = input.warnings?.[message.id];
    const cached = cache?.get(message);
    if (cached !== undefined && cached.warnings === warnings) {
      items.push(cached.item);
      continue;
    }
    const item = buildStoredItem(message, warnings);
    cache?.set(message, { item, warnings });
    items.push(item);
  }
  return items;
}

/** The question being sent and the answers streaming in, after the stored rows. */
function buildUnsavedItems(input: ChatItemsInput, storedIds: ReadonlySet<string>): ChatItem[] {
  const items: ChatItem[] = [];
  if (input.pendingUser?.role === 'user') {
    items.push({ kind: 'user', key: input.pendingUser.id, message: input.pendingUser, isPending: true });
  }
  // A live answer gives way to its stored copy, so no message is ever listed twice.
  const live = input.liveAnswers.filter((answer) => !storedIds.has(answer.messageId));
  if (live.length > 1) {
    items.push({ kind: 'compare', key: `live-${live[0]?.messageId ?? ''}`, answers: [...live], isLive: true });
  } else {
    for (const answer of live) items.push({ kind: 'answer', key: answer.messageId, answer, isLive: true });
  }
  return items;
}

/**
 * buildChatItems for a chat that keeps changing: the rows of stored messages are kept from the
 * previous call while the chain, the compare group and the warnings stay the same, so a token
 * streaming in builds no stored row, and a chain that only grew at its ends (a batch of older
 * messages, a saved turn) builds rows for the messages it gained, not for the whole chain.
 */
export function createChatItemsBuilder(): (input: ChatItemsInput) => ChatItem[] {
  const cache: ChatItemCache = new WeakMap();
  let last:
    | {
        chain: readonly ChatMessageSimple[];
        compareGroup: CompareGroup | null;
        warnings: ChatItemsInput['warnings'];
        stored: ChatItem[];
        ids: Set<string>;
      }
    | undefined;
  return (input) => {
    const { chain, compareGroup, warnings } = input;
    const isSameContext = last !== undefined && last.compareGroup === compareGroup && last.warnings === warnings;
    const start = isSameContext && last !== undefined && last.chain !== chain ? findGrownFrom(last.chain, chain) : -1;
    if (last !== undefined && isSameContext && last.chain === chain) {
      // Unchanged stored part: only the unsaved rows are built.
    } else if (last !== undefined && start >= 0) {
      const end = start + last.chain.length;
      const before = chain.slice(0, start);
      const after = chain.slice(end);
      for (const message of before) last.ids.add(message.id);
      for (const message of after) last.ids.add(message.id);
      last = {
        chain,
        compareGroup,
        warnings,
        stored: [...buildStoredItems(before, input, cache), ...last.stored, ...buildStoredItems(after, input, cache)],
        ids: last.ids,
      };
    } else {
      last = {
        chain,
        compareGroup,
        warnings,
        stored: buildStoredItems(chain, input, cache),
        ids: new Set(chain.map((message) => message.id)),
      };
    }
    return [...last.stored, ...buildUnsavedItems(input, last.ids)];
  };
}

/** Whether a row shows the message (a compare row shows each of its answers). */
export function isMessageInItem(item: ChatItem, messageId: string): boolean {
  switch (item.kind) {
    case 'user':
      return item.message.id === messageId;
    case 'answer':
      return item.answer.messageId === messageId;
    case 'compare':
      return item.answers.some((answer) => answer.messageId === messageId);
  }
}

/** The compared answers a merge can combine: not failed, not still streaming, with some text. */
export function selectMergeableAnswers(answers: readonly AnswerView[]): AnswerView[] {
  return answers.filter(
    (answer) =>
      answer.status !== 'error' &&
      answer.status !== 'streaming' &&
      answer.blocks.some((block) => block.kind === 'text' && block.text.trim() !== ''),
  );
}
