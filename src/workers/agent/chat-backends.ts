/**
 * Where each chat is kept, decided in one place: a saved chat in IndexedDB, a temporary chat in
 * this worker's memory (it lives as long as the page that started it). Every part of the host
 * that reads or writes a chat (a turn, its title, compaction, the preview, the page's reads)
 * asks here for that chat's stores and then works the same whichever it got.
 */
import type { ChatMessageSimple, MessageId, Session } from '../../core/model';
import type { ChatStores, Clock, Ids } from '../../core/ports';
import { createSessionCache, type SessionCache } from '../../storage';
import { createMemoryChatStores, type MemoryChatStores } from '../../storage/memory-chat.store';

/** One place chats are kept: its stores, and its chains read through a session cache. */
export interface ChatBackend extends ChatStores {
  /** The chain ending at `leafId` (empty for null); the visible one through the cache. */
  loadChain(session: Session, leafId: MessageId | null): Promise<ChatMessageSimple[]>;
  /** Tells the cache about the chain a turn just wrote. */
  rememberChain(session: Session, chain: ChatMessageSimple[]): void;
  cache: SessionCache;
}

export interface ChatBackends {
  saved: ChatBackend;
  temporary: ChatBackend & Pick<MemoryChatStores, 'has' | 'listMessages' | 'files' | 'attachedFiles'>;
  /** An existing chat's: the temporary one if this worker holds it, else the database's. */
  forSession(sessionId: string): ChatBackend;
  /** A send's: its chat's, or for a new chat, memory when it is to be temporary. */
  forRequest(request: { sessionId: string | null; isTemporary?: boolean | undefined }): ChatBackend;
}

function createBackend<S extends ChatStores>(stores: S): ChatBackend & S {
  const cache = createSessionCache({
    getSession: (id) => stores.sessions.get(id),
    loadChain: (leafId) => stores.messages.loadChain(leafId),
  });
  return {
    ...stores,
    cache,
    async loadChain(session, leafId) {
      if (leafId === null) return [];
      // The visible chain is the common case and the cached one; another branch point walks.
      if (leafId === session.currentLeafId) return [...(await cache.loadVisibleChain(session.id))];
      return stores.messages.loadChain(leafId);
    },
    rememberChain: (session, chain) => cache.prime(session, chain),
  };
}

export function createChatBackends(saved: ChatStores, clock: Clock, ids: Ids): ChatBackends {
  const savedBackend = createBackend(saved);
  const temporary = createBackend(createMemoryChatStores(clock, ids));
  const forSession = (sessionId: string): ChatBackend => (temporary.has(sessionId) ? temporary : savedBackend);
  return {
    saved: savedBackend,
    temporary,
    forSession,
    forRequest: (request) =>
      request.sessionId === null ? (request.isTemporary === true ? temporary : savedBackend) : forSession(request.sessionId),
  };
}
