/**
 * A chat shared as a file: one conversation (the branch on screen) with everything its messages
 * hold, as JSON. The web page a chat is exported as carries this JSON in a data block, so the
 * same page that reads well in any browser imports back into Carrel as a new chat.
 */
import { z } from 'zod';
import { chatMessageSimpleSchema, type ChatMessageSimple, type MessageStatus } from './message';
import type { Session } from './session';

export const SHARED_CHAT_FORMAT = 'carrel-shared-chat';
/** The id of the data block in an exported web page. */
export const SHARED_CHAT_DATA_ID = 'carrel-shared-chat';
/** Far above any real chat, low enough that a hostile file cannot make the import run for hours. */
const MAX_SHARED_MESSAGES = 50_000;

export const sharedChatSchema = z.object({
  format: z.literal(SHARED_CHAT_FORMAT),
  version: z.literal(1),
  title: z.string().max(1_000),
  exportedAt: z.number().int().nonnegative(),
  /** Oldest first; each message's parent is the one before it. */
  messages: z.array(chatMessageSimpleSchema).min(1).max(MAX_SHARED_MESSAGES),
});
export type SharedChat = z.infer<typeof sharedChatSchema>;

export interface SharedChatImportReport {
  sessionId: Session['id'];
  title: string;
  messages: number;
}

/** The conversation on screen (`chain`, oldest first) as a shared chat. */
export function buildSharedChat(
  session: Session,
  chain: readonly ChatMessageSimple[],
  exportedAt: number,
): SharedChat {
  return {
    format: SHARED_CHAT_FORMAT,
    version: 1,
    title: session.title,
    exportedAt,
    messages: [...chain],
  };
}

/**
 * The shared chat as JSON that is safe inside an HTML `<script type="application/json">` block:
 * `<`, `>` and `&` are escaped, so no text in the chat can close the block or open a tag.
 */
export function serializeSharedChat(shared: SharedChat): string {
  return JSON.stringify(shared)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026');
}

const DATA_BLOCK_PATTERN = new RegExp(
  `<script type="application/json" id="${SHARED_CHAT_DATA_ID}">([^<]*)</script>`,
);

/** The chat's JSON from a shared file: the file itself, or the data block of its web page. */
export function extractSharedChatJson(text: string): string | null {
  if (text.trimStart().startsWith('{')) return text;
  return DATA_BLOCK_PATTERN.exec(text)?.[1] ?? null;
}

/** What an exported answer says about how it ended, when it did not simply finish. */
export function describeUnfinishedAnswer(status: MessageStatus): string | null {
  switch (status) {
    case 'complete':
      return null;
    case 'streaming':
      return 'Answer still being written when exported.';
    case 'stopped':
      return 'Stopped before the end.';
    case 'interrupted':
      return 'Interrupted before the end.';
    case 'error':
      return 'Ended with an error.';
  }
}
