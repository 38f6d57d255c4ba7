/** The boundary between message rows and ChatMessageSimple: rows never leave storage. */
import { chatMessageSimpleSchema, type ChatMessageSimple } from '../core/model';
import { ROOT_PARENT_ID, type MessageRow } from './db';
import type { UnplacedMessageRow } from './message-lines';
import { parseStored } from './parse-row';

export function countMessageTokens(message: ChatMessageSimple): number {
  if (message.role === 'user') {
    return message.attachments.reduce(
      (total, attachment) => total + attachment.tokenCount,
      message.textTokenCount,
    );
  }
  let total = 0;
  for (const step of message.steps) {
    total += step.textTokenCount + (step.reasoning?.tokenCount ?? 0);
    for (const call of step.toolCalls)
      total += call.argumentsTokenCount + (call.result?.tokenCount ?? 0);
  }
  return total;
}

/** The row without its place in a line: `message.store.ts` or `placeRows` adds that. */
export function toMessageRow(message: ChatMessageSimple): UnplacedMessageRow {
  const common = {
    parentId: message.parentId ?? ROOT_PARENT_ID,
    tokenCount: countMessageTokens(message),
  };
  return message.role === 'user'
    ? { ...message, ...common, status: 'complete' }
    : { ...message, ...common };
}

/** Validates a row (possibly written by an older version) and rebuilds the message. */
export function fromMessageRow(row: MessageRow): ChatMessageSimple {
  // The schema strips what only rows have: `tokenCount`, a user's `status`, an assistant's `text`.
  return parseStored(
    chatMessageSimpleSchema,
    { ...row, parentId: row.parentId === ROOT_PARENT_ID ? null : row.parentId },
    `Stored message ${row.id}`,
  );
}
