import type { ChatMessageSimple, UserMessage } from '../../core/model';
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

export function buildChatItems(input: ChatItemsInput): ChatItem[] {
  const items: ChatItem[] = [];
  const { compareGroup } = input;
  for (const message of input.chain) {
    if (message.role === 'user') {
      items.push({ kind: 'user', key: message.id, message, isPending: false });
      continue;
    }
    const isCompared =
      compareGroup !== null &&
      message.parentId === compareGroup.userMessageId &&
      compareGroup.answers.some((answer) => answer.messageId === message.id);
    if (isCompared) {
      items.push({ kind: 'compare', key: `compare-${compareGroup.userMessageId}`, answers: compareGroup.answers, isLive: false });
    } else {
      const answer = answerFromMessage(message, message.model?.modelId ?? '');
      answer.warnings = [...(input.warnings?.[message.id] ?? [])];
      items.push({ kind: 'answer', key: message.id, answer, isLive: false });
    }
  }
  if (input.pendingUser?.role === 'user') {
    items.push({ kind: 'user', key: input.pendingUser.id, message: input.pendingUser, isPending: true });
  }
  // A live answer gives way to its stored copy, so no message is ever listed twice.
  const storedIds = new Set<string>(input.chain.map((message) => message.id));
  const live = input.liveAnswers.filter((answer) => !storedIds.has(answer.messageId));
  if (live.length > 1) {
    items.push({ kind: 'compare', key: `live-${live[0]?.messageId ?? ''}`, answers: [...live], isLive: true });
  } else {
    for (const answer of live) items.push({ kind: 'answer', key: answer.messageId, answer, isLive: true });
  }
  return items;
}
