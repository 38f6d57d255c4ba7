/**
 * The stores of temporary chats: the same ports as the IndexedDB stores (sessions, the message
 * tree with its branches, summaries, usage) over plain maps, so a temporary chat runs through
 * the same agent loop and the same page code and leaves nothing in the database. What it holds
 * lives as long as the worker that holds it: closing or reloading the page loses it.
 *
 * It keeps the IndexedDB stores' contract (test/unit/storage/chat-stores.contract.ts runs both):
 * rows are checked with their schemas on the way in, copied in and out (a caller never holds
 * a stored object), every change to a session or its messages bumps its `version`, and a new
 * message becomes the current leaf.
 */
import {
  chatMessageSimpleSchema,
  chatSummarySchema,
  sessionSchema,
  type ChatMessageSimple,
  type ChatSummary,
  type FileId,
  type MessageId,
  type Session,
  type SessionId,
} from '../core/model';
import type { ChatStores, Clock, FileStore, Ids, StoredFile, UsageRecord } from '../core/ports';
import { StorageError } from './errors';
import { compareRows } from './message-lines';
import { createMemoryFileStore } from './memory-file.store';
import { parseStored } from './parse-row';
import { usageRecordSchema } from './usage.store';

export interface MemoryChatStores extends ChatStores {
  /** Whether this session is kept here. */
  has(sessionId: string): boolean;
  /** Every message of the session, every branch, parents before their children. */
  listMessages(sessionId: SessionId): ChatMessageSimple[];
  /** The chats' attachments; a session's go when it is deleted. */
  files: FileStore;
  /** The files attached to the session's messages (any branch), each once. */
  attachedFiles(sessionId: SessionId): Promise<StoredFile[]>;
}

/** Runs a synchronous read or write as a store call: a throw becomes a rejected promise. */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

export function createMemoryChatStores(clock: Clock, ids: Ids): MemoryChatStores {
  const sessions = new Map<string, Session>();
  const messages = new Map<string, ChatMessageSimple>();
  const summaries = new Map<string, ChatSummary>();
  const usage = new Map<string, UsageRecord>();
  const files = createMemoryFileStore();
  const attachedIds = (sessionId: string): FileId[] => [
    ...new Set(
      [...messages.values()].flatMap((message) =>
        message.sessionId === sessionId && message.role === 'user'
          ? message.attachments.map((attachment) => attachment.fileId)
          : [],
      ),
    ),
  ];

  const sessionOf = (id: string): Session => {
    const session = sessions.get(id);
    if (session === undefined)
      throw new StorageError('not_found', `Session ${id} no longer exists.`);
    return session;
  };
  const messageOf = (id: string): ChatMessageSimple => {
    const message = messages.get(id);
    if (message === undefined)
      throw new StorageError('not_found', `Message ${id} no longer exists.`);
    return message;
  };
  /** Every change to a session or its messages moves its version on. */
  const touch = (session: Session, patch: Partial<Session> = {}): Session => {
    const next = { ...session, ...patch, version: session.version + 1, updatedAt: clock.now() };
    sessions.set(next.id, next);
    return next;
  };
  const childrenOf = (sessionId: string, parentId: string | null): ChatMessageSimple[] =>
    [...messages.values()]
      .filter((message) => message.sessionId === sessionId && message.parentId === parentId)
      .sort(compareRows);
  const newestLeafBelow = (start: ChatMessageSimple): ChatMessageSimple => {
    let leaf = start;
    for (
      let newest = childrenOf(leaf.sessionId, leaf.id).at(-1);
      newest;
      newest = childrenOf(leaf.sessionId, leaf.id).at(-1)
    ) {
      leaf = newest;
    }
    return leaf;
  };
  const chainTo = (leafId: string): ChatMessageSimple[] => {
    const chain: ChatMessageSimple[] = [];
    const seen = new Set<string>();
    for (let id: string | null = leafId; id !== null;) {
      const message = messages.get(id);
      if (message === undefined)
        throw new StorageError(
          'not_found',
          `Message ${id} in the chain of ${leafId} no longer exists.`,
        );
      if (seen.has(id))
        throw new StorageError(
          'invalid_data',
          `Message ${leafId} has a cycle in its parent links.`,
        );
      seen.add(id);
      chain.push(message);
      id = message.parentId;
    }
    return chain.reverse();
  };
  const copy = <T>(value: T): T => structuredClone(value);
  const deleteWhere = <T extends { sessionId: string }>(
    map: Map<string, T>,
    sessionId: string,
  ): void => {
    for (const [id, row] of map) if (row.sessionId === sessionId) map.delete(id);
  };

  return {
    has: (sessionId) => sessions.has(sessionId),
    files,
    attachedFiles: async (sessionId) => {
      const found = await Promise.all(attachedIds(sessionId).map((id) => files.get(id)));
      return found.filter((file): file is StoredFile => file !== undefined);
    },

    listMessages: (sessionId) => {
      const ordered: ChatMessageSimple[] = [];
      for (let level = childrenOf(sessionId, null); level.length > 0;) {
        ordered.push(...level);
        level = level.flatMap((message) => childrenOf(sessionId, message.id));
      }
      return copy(ordered);
    },

    sessions: {
      create: (session) =>
        settle(() => {
          const row = parseStored(sessionSchema, session, `Session ${session.id}`);
          if (sessions.has(row.id))
            throw new StorageError('invalid_data', `Session ${row.id} already exists.`);
          sessions.set(row.id, copy(row));
        }),
      get: (id) => settle(() => copy(sessions.get(id))),
      list: () =>
        settle(() => copy([...sessions.values()].sort((a, b) => b.updatedAt - a.updatedAt))),
      update: (id, patch) =>
        settle(() => {
          const row = sessionOf(id);
          const next = parseStored(
            sessionSchema,
            { ...row, ...patch, id: row.id, version: row.version + 1, updatedAt: clock.now() },
            `Session ${id}`,
          );
          sessions.set(id, copy(next));
          return copy(next);
        }),
      delete: (id) =>
        settle(() => {
          for (const fileId of attachedIds(id)) void files.delete(fileId);
          deleteWhere(messages, id);
          deleteWhere(summaries, id);
          deleteWhere(usage, id);
          sessions.delete(id);
        }),
    },

    messages: {
      put: (message) =>
        settle(() => {
          const row = parseStored(chatMessageSimpleSchema, message, `Message ${message.id}`);
          const session = sessionOf(row.sessionId);
          const stored = messages.get(row.id);
          if (stored !== undefined && stored.parentId !== row.parentId) {
            throw new StorageError(
              'invalid_data',
              `Message ${row.id} cannot move to another parent; save an edit as a new message.`,
            );
          }
          messages.set(row.id, copy(row));
          touch(session, stored === undefined ? { currentLeafId: row.id } : {});
        }),
      get: (id) => settle(() => copy(messages.get(id))),
      loadChain: (leafId) => settle(() => copy(chainTo(leafId))),
      children: (sessionId, parentId) => settle(() => copy(childrenOf(sessionId, parentId))),
      listStreaming: () =>
        settle(() =>
          copy(
            [...messages.values()].filter(
              (message) => message.role === 'assistant' && message.status === 'streaming',
            ),
          ),
        ),
      siblings: (messageId) =>
        settle(() => {
          const message = messageOf(messageId);
          const ids = childrenOf(message.sessionId, message.parentId).map((sibling) => sibling.id);
          return { index: ids.indexOf(messageId), count: ids.length, ids };
        }),
      forkedParents: (sessionId) =>
        settle(() => {
          const children = new Map<MessageId | null, number>();
          for (const message of messages.values())
            if (message.sessionId === sessionId)
              children.set(message.parentId, (children.get(message.parentId) ?? 0) + 1);
          return [...children].filter(([, count]) => count > 1).map(([parentId]) => parentId);
        }),
      switchBranch: (messageId) =>
        settle(() => {
          const leaf = newestLeafBelow(messageOf(messageId));
          touch(sessionOf(leaf.sessionId), { currentLeafId: leaf.id });
          return leaf.id;
        }),
      deleteBranch: (messageId) =>
        settle(() => {
          const target = messageOf(messageId);
          const session = sessionOf(target.sessionId);
          const deleted = new Set<string>();
          for (
            let level = [target];
            level.length > 0;
            level = level.flatMap((m) => childrenOf(m.sessionId, m.id))
          ) {
            for (const message of level) deleted.add(message.id);
          }
          for (const id of deleted) messages.delete(id);
          // Only a deleted leaf moves: deleting a branch the user is not looking at keeps the view.
          let leafId: MessageId | null = session.currentLeafId;
          if (leafId !== null && deleted.has(leafId)) {
            const parent = target.parentId === null ? undefined : messages.get(target.parentId);
            const newestRoot = childrenOf(target.sessionId, null).at(-1);
            const start = parent ?? newestRoot;
            leafId = start === undefined ? null : newestLeafBelow(start).id;
          }
          touch(session, { currentLeafId: leafId });
          return leafId;
        }),
      loadVisibleChain: (sessionId) =>
        settle(() => {
          const session = sessionOf(sessionId);
          return session.currentLeafId === null ? [] : copy(chainTo(session.currentLeafId));
        }),
      loadChainEnd: (leafId, maxLength) =>
        settle(() => {
          const chain = chainTo(leafId);
          const messagesShown = chain.slice(Math.max(0, chain.length - maxLength));
          return { messages: copy(messagesShown), isComplete: messagesShown.length === chain.length };
        }),
      loadChainBelow: (leafId, ancestorId, maxLength) =>
        settle(() => {
          const rows: ChatMessageSimple[] = [];
          for (let id: MessageId | null = leafId; id !== ancestorId;) {
            if (id === null || rows.length >= maxLength) return null;
            const message = messages.get(id);
            if (message === undefined)
              throw new StorageError(
                'not_found',
                `Message ${id} in the chain of ${leafId} no longer exists.`,
              );
            rows.push(message);
            id = message.parentId;
          }
          return copy(rows.reverse());
        }),
    },

    summaries: {
      add: (summary) =>
        settle(() => {
          const record = parseStored(chatSummarySchema, summary, 'Summary');
          summaries.set(record.id, copy(record));
          return copy(record);
        }),
      listBySession: (sessionId) =>
        settle(() =>
          copy(
            [...summaries.values()]
              .filter((s) => s.sessionId === sessionId)
              .sort((a, b) => a.createdAt - b.createdAt),
          ),
        ),
      markUndone: (id, at) =>
        settle(() => {
          const summary = summaries.get(id);
          if (summary) summaries.set(id, { ...summary, undoneAt: at });
        }),
    },

    usage: {
      record: (entry) =>
        settle(() => {
          const record = parseStored(
            usageRecordSchema,
            { ...entry, id: ids.newId(), createdAt: clock.now() },
            'Usage record',
          );
          usage.set(record.id, copy(record));
          return copy(record);
        }),
      listBySession: (sessionId) =>
        settle(() =>
          copy(
            [...usage.values()]
              .filter((r) => r.sessionId === sessionId)
              .sort((a, b) => a.createdAt - b.createdAt),
          ),
        ),
      listSince: (sinceMs) =>
        settle(() =>
          copy(
            [...usage.values()]
              .filter((r) => r.createdAt >= sinceMs)
              .sort((a, b) => a.createdAt - b.createdAt),
          ),
        ),
    },
  };
}
