/**
 * A whole chat written to the database as a new one: a temporary chat saved ("Save this chat")
 * and a shared chat file imported both arrive here. The rows get new ids, so nothing stored can
 * be overwritten, and are written in one transaction: all of the chat or none of it.
 */
import { z } from 'zod';
import {
  asMessageId,
  asSessionId,
  chatMessageSimpleSchema,
  chatSummarySchema,
  sessionSchema,
  type ChatMessageSimple,
  type ChatSummary,
  type MessageId,
  type Session,
} from '../core/model';
import type { StoredFile, UsageRecord } from '../core/ports';
import type { CarrelDb } from './db';
import { StorageError } from './errors';
import { putFiles, storedFileSchema } from './file.store';
import { guardStorage } from './guard';
import { placeImportedRows } from './message-lines';
import { toMessageRow } from './message-rows';
import { describeIssues } from './parse-row';
import { usageRecordSchema } from './usage.store';

/** A chat with everything kept with it. Messages list parents before their children. */
export interface ChatRecords {
  session: Session;
  messages: ChatMessageSimple[];
  summaries: ChatSummary[];
  usage: UsageRecord[];
  /** The files its messages attach, kept under their ids (new to this database too). */
  files: StoredFile[];
}

const chatRecordsSchema = z.object({
  session: sessionSchema,
  messages: z.array(chatMessageSimpleSchema),
  summaries: z.array(chatSummarySchema),
  usage: z.array(usageRecordSchema),
  files: z.array(storedFileSchema),
});

/** The same chat under new ids (session, messages, summaries, usage records), every link kept. */
export function copyChatWithNewIds(chat: ChatRecords, newId: () => string): ChatRecords {
  const sessionId = asSessionId(newId());
  const messageIds = new Map<string, MessageId>(chat.messages.map((message) => [message.id, asMessageId(newId())]));
  const summaryIds = new Map<string, string>(chat.summaries.map((summary) => [summary.id, newId()]));
  const messageId = (id: MessageId): MessageId => {
    const mapped = messageIds.get(id);
    if (mapped === undefined) throw new StorageError('invalid_data', `Message ${id} is not part of the chat being copied.`);
    return mapped;
  };
  return {
    session: {
      ...chat.session,
      id: sessionId,
      currentLeafId: chat.session.currentLeafId === null ? null : messageId(chat.session.currentLeafId),
      version: 0,
    },
    messages: chat.messages.map((message) => ({
      ...message,
      id: messageId(message.id),
      sessionId,
      parentId: message.parentId === null ? null : messageId(message.parentId),
    })),
    summaries: chat.summaries.map((summary) => ({
      ...summary,
      id: summaryIds.get(summary.id) ?? newId(),
      sessionId,
      lastMessageId: messageId(summary.lastMessageId),
      coveredIds: summary.coveredIds.map(messageId),
      previousSummaryId: summary.previousSummaryId === null ? null : (summaryIds.get(summary.previousSummaryId) ?? null),
    })),
    usage: chat.usage.map((record) => ({ ...record, id: newId(), sessionId, messageId: messageId(record.messageId) })),
    files: chat.files,
  };
}

/**
 * Writes a chat that is new to this database, checked whole first, in one transaction.
 * `label` names it in the error a bad chat gets ("This shared chat cannot be imported").
 */
export async function writeNewChat(db: CarrelDb, chat: ChatRecords, label: string): Promise<void> {
  const checked = chatRecordsSchema.safeParse(chat);
  if (!checked.success) throw new StorageError('invalid_data', `${label}: ${describeIssues(checked.error.issues, chat)}`);
  await guardStorage(db, () =>
    db.transaction('rw', [db.sessions, db.messages, db.summaries, db.usage, db.files, db.fileTexts], async () => {
      await db.sessions.add(checked.data.session);
      await db.messages.bulkAdd(await placeImportedRows(db, checked.data.messages.map(toMessageRow)));
      await db.summaries.bulkAdd(checked.data.summaries);
      await db.usage.bulkAdd(checked.data.usage);
      await putFiles(db, checked.data.files);
    }),
  );
}
