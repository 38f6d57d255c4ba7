/**
 * Full-text search across chats (titles and message text) with MiniSearch. The index lives in
 * memory and is kept current one message at a time; `indexDatabase` builds it once on start.
 */
import type {
  CreatingHookContext,
  DeletingHookContext,
  Transaction,
  UpdatingHookContext,
} from 'dexie';
import MiniSearch from 'minisearch';
import {
  answerText,
  asMessageId,
  asSessionId,
  type ChatMessageSimple,
  type MessageId,
  type SessionId,
} from '../core/model';
import type { SearchHit, SearchIndex } from '../core/ports';
import type { CarrelDb, MessageRow, SessionRow } from './db';
import { guardStorage } from './guard';
import { fromMessageRow } from './message-rows';

/** Characters of context kept on each side of the first match. */
export const SNIPPET_RADIUS_CHARS = 60;
export const DEFAULT_SEARCH_LIMIT = 20;
/** Typos of about one letter in five still match (MiniSearch's edit-distance ratio). */
const FUZZY_RATIO = 0.2;

interface SearchDocument {
  id: string;
  sessionId: string;
  messageId: string | null;
  text: string;
}

const sessionDocId = (sessionId: string) => `s:${sessionId}`;
const messageDocId = (messageId: string) => `m:${messageId}`;

function messageText(message: ChatMessageSimple): string {
  return message.role === 'user' ? message.text : answerText(message);
}

/** The text around the earliest matched term, cut at word boundaries where possible. */
export function buildSnippet(
  text: string,
  terms: readonly string[],
  radius: number = SNIPPET_RADIUS_CHARS,
): string {
  const lower = text.toLowerCase();
  const positions = terms
    .map((term) => lower.indexOf(term.toLowerCase()))
    .filter((position) => position >= 0);
  const hit = positions.length === 0 ? 0 : Math.min(...positions);
  let start = Math.max(0, hit - radius);
  let end = Math.min(text.length, hit + radius);
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < hit) start = space + 1;
  }
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > hit) end = space;
  }
  const body = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}

export function createSearchIndex(): SearchIndex {
  const index = new MiniSearch<SearchDocument>({
    fields: ['text'],
    storeFields: ['sessionId', 'messageId', 'text'],
    searchOptions: { prefix: true, fuzzy: FUZZY_RATIO, combineWith: 'AND' },
  });
  const titles = new Map<string, string>();
  const docsBySession = new Map<string, Set<string>>();

  const upsert = (document: SearchDocument) => {
    if (index.has(document.id)) index.replace(document);
    else index.add(document);
    const docs = docsBySession.get(document.sessionId) ?? new Set<string>();
    docs.add(document.id);
    docsBySession.set(document.sessionId, docs);
  };

  return {
    upsertSession(session) {
      titles.set(session.id, session.title);
      upsert({
        id: sessionDocId(session.id),
        sessionId: session.id,
        messageId: null,
        text: session.title,
      });
    },
    removeSession(sessionId) {
      for (const id of docsBySession.get(sessionId) ?? []) if (index.has(id)) index.discard(id);
      docsBySession.delete(sessionId);
      titles.delete(sessionId);
    },
    upsertMessage(message) {
      upsert({
        id: messageDocId(message.id),
        sessionId: message.sessionId,
        messageId: message.id,
        text: messageText(message),
      });
    },
    removeMessage(messageId) {
      const id = messageDocId(messageId);
      if (index.has(id)) index.discard(id);
    },
    search(query, limit = DEFAULT_SEARCH_LIMIT, options = {}): SearchHit[] {
      if (query.trim() === '') return [];
      const { excludeSessionId, snippetRadius } = options;
      return index
        .search(
          query,
          excludeSessionId === undefined
            ? {}
            : { filter: (result) => result['sessionId'] !== excludeSessionId },
        )
        .slice(0, limit)
        .map((result) => {
          const sessionId: SessionId = asSessionId(String(result.sessionId));
          const rawMessageId = result.messageId as string | null;
          const messageId: MessageId | null =
            rawMessageId === null ? null : asMessageId(rawMessageId);
          return {
            sessionId,
            messageId,
            title: titles.get(sessionId) ?? '',
            snippet: buildSnippet(String(result.text), result.terms, snippetRadius),
            score: result.score,
          };
        });
    },
  };
}

/** Fills an index from everything stored: every session title and every message, all branches. */
export async function indexDatabase(db: CarrelDb, index: SearchIndex): Promise<void> {
  await guardStorage(db, async () => {
    const [sessions, rows] = await db.transaction('r', [db.sessions, db.messages], () =>
      Promise.all([db.sessions.toArray(), db.messages.toArray()]),
    );
    for (const session of sessions) index.upsertSession(session);
    for (const row of rows) index.upsertMessage(fromMessageRow(row));
  });
}

/**
 * Keeps `index` current with every session and message write made through this database
 * connection (this tab, or this worker). Updates apply when their transaction commits, so an
 * aborted write never shows up in search. Writes made in another context reach this index
 * only through that context's own attachment or `indexDatabase`. Returns the detach function.
 */
export function attachSearchIndex(db: CarrelDb, index: SearchIndex): () => void {
  const afterCommit = (transaction: Transaction, apply: () => void) => {
    transaction.on('complete', () => {
      try {
        apply();
      } catch (error) {
        // The write itself succeeded; only its search entry is missing until the next rebuild.
        console.error('Carrel could not update chat search for a saved change.', error);
      }
    });
  };

  function onMessageCreating(
    this: CreatingHookContext<MessageRow, string>,
    _key: string,
    row: MessageRow,
    transaction: Transaction,
  ) {
    this.onsuccess = () => afterCommit(transaction, () => index.upsertMessage(fromMessageRow(row)));
  }
  function onMessageUpdating(
    this: UpdatingHookContext<MessageRow, string>,
    _mods: object,
    _key: string,
    _row: MessageRow,
    transaction: Transaction,
  ) {
    this.onsuccess = (updated) =>
      afterCommit(transaction, () => index.upsertMessage(fromMessageRow(updated)));
  }
  function onMessageDeleting(
    this: DeletingHookContext<MessageRow, string>,
    key: string,
    _row: MessageRow,
    transaction: Transaction,
  ) {
    this.onsuccess = () => afterCommit(transaction, () => index.removeMessage(asMessageId(key)));
  }
  function onSessionCreating(
    this: CreatingHookContext<SessionRow, string>,
    _key: string,
    row: SessionRow,
    transaction: Transaction,
  ) {
    this.onsuccess = () => afterCommit(transaction, () => index.upsertSession(row));
  }
  function onSessionUpdating(
    this: UpdatingHookContext<SessionRow, string>,
    _mods: object,
    _key: string,
    _row: SessionRow,
    transaction: Transaction,
  ) {
    this.onsuccess = (updated) => afterCommit(transaction, () => index.upsertSession(updated));
  }
  function onSessionDeleting(
    this: DeletingHookContext<SessionRow, string>,
    key: string,
    _row: SessionRow,
    transaction: Transaction,
  ) {
    this.onsuccess = () => afterCommit(transaction, () => index.removeSession(asSessionId(key)));
  }

  db.messages.hook('creating', onMessageCreating);
  db.messages.hook('updating', onMessageUpdating);
  db.messages.hook('deleting', onMessageDeleting);
  db.sessions.hook('creating', onSessionCreating);
  db.sessions.hook('updating', onSessionUpdating);
  db.sessions.hook('deleting', onSessionDeleting);
  return () => {
    db.messages.hook('creating').unsubscribe(onMessageCreating);
    db.messages.hook('updating').unsubscribe(onMessageUpdating);
    db.messages.hook('deleting').unsubscribe(onMessageDeleting);
    db.sessions.hook('creating').unsubscribe(onSessionCreating);
    db.sessions.hook('updating').unsubscribe(onSessionUpdating);
    db.sessions.hook('deleting').unsubscribe(onSessionDeleting);
  };
}
