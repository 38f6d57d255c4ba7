/**
 * Importing a chat shared as a file (core/model/shared-chat.ts describes the format).
 * Importing never touches what is stored: the chat and its messages get new ids, so importing
 * the same file twice gives two chats, and a file cannot overwrite anything.
 */
import {
  asMessageId,
  asSessionId,
  extractSharedChatJson,
  sharedChatSchema,
  type ChatMessageSimple,
  type MessageId,
  type Session,
  type SharedChat,
  type SharedChatImportReport,
} from '../../core/model';
import type { Clock } from '../../core/ports';
import type { CarrelDb } from '../db';
import { StorageError } from '../errors';
import { writeNewChat } from '../chat-copy';
import { describeIssues } from '../parse-row';

function invalidFile(message: string): StorageError {
  return new StorageError('invalid_data', `This shared chat cannot be imported: ${message}`);
}

/** Reads a shared chat from its JSON or from the web page it was exported as. */
export function readSharedChat(text: string): SharedChat {
  const json = extractSharedChatJson(text);
  if (json === null)
    throw invalidFile(
      'it is neither a chat exported from Carrel as a web page nor its JSON (no chat data found in it).',
    );
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw invalidFile(
      `its chat data is not complete JSON (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  const parsed = sharedChatSchema.safeParse(value);
  if (!parsed.success) throw invalidFile(describeIssues(parsed.error.issues, value));
  const { messages } = parsed.data;
  const broken = messages.findIndex((message, index) =>
    index === 0 ? message.parentId !== null : message.parentId !== messages[index - 1]?.id,
  );
  if (broken !== -1)
    throw invalidFile(
      `its messages do not form one conversation (message ${broken + 1} does not follow the one before it).`,
    );
  return parsed.data;
}

export interface SharedChatImportDeps {
  clock: Clock;
  newId: () => string;
}

/** Checks the whole file, then writes it as a new chat in one transaction. */
export async function importSharedChat(
  db: CarrelDb,
  text: string,
  deps: SharedChatImportDeps,
): Promise<SharedChatImportReport> {
  const shared = readSharedChat(text);
  const now = deps.clock.now();
  const sessionId = asSessionId(deps.newId());
  let parentId: MessageId | null = null;
  const messages = shared.messages.map((message): ChatMessageSimple => {
    const id = asMessageId(deps.newId());
    const copy = { ...message, id, sessionId, parentId };
    parentId = id;
    return copy;
  });
  const session: Session = {
    id: sessionId,
    title: shared.title.trim() === '' ? 'Shared chat' : shared.title,
    projectId: null,
    agentId: null,
    models: [],
    currentLeafId: parentId,
    isPinned: false,
    isArchived: false,
    createdAt: now,
    updatedAt: now,
    version: 0,
  };
  await writeNewChat(db, { session, messages, summaries: [], usage: [], files: [] }, 'This shared chat cannot be imported');
  return { sessionId, title: session.title, messages: messages.length };
}
