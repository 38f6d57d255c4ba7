/**
 * Cache-aside LRU of recently active sessions' visible chains (recent sessions are
 * read far more often than old ones; old ones stay in IndexedDB and are re-cached on demand).
 *
 * Each read costs one primary-key read of the session row. The entry is served only when the
 * session's leaf and `version` still match, and every write to a session or its messages bumps
 * that version in the same transaction, whichever tab made it: the cache can miss, never go stale.
 */
import type { ChatMessageSimple, Session, SessionId } from '../core/model';
import type { MessageId } from '../core/model';

/** Enough for the sessions a person switches between; each entry is one chain. */
export const DEFAULT_SESSION_CACHE_ENTRIES = 20;

export interface SessionCacheSources {
  getSession(id: SessionId): Promise<Session | undefined>;
  loadChain(leafId: MessageId): Promise<ChatMessageSimple[]>;
}

export interface SessionCacheStats {
  hits: number;
  misses: number;
  size: number;
}

export interface SessionCache {
  /** The session's visible chain, oldest first; each message carries its token counts. */
  loadVisibleChain(sessionId: SessionId): Promise<readonly ChatMessageSimple[]>;
  /**
   * Stores a chain the caller just wrote (the agent after a turn), valid for exactly this
   * session version, so the next turn starts from memory instead of walking IndexedDB again.
   */
  prime(session: Session, chain: readonly ChatMessageSimple[]): void;
  invalidate(sessionId: SessionId): void;
  clear(): void;
  stats(): SessionCacheStats;
}

interface CacheEntry {
  leafId: MessageId;
  version: number;
  chain: readonly ChatMessageSimple[];
}

export function createSessionCache(
  sources: SessionCacheSources,
  maxEntries: number = DEFAULT_SESSION_CACHE_ENTRIES,
): SessionCache {
  // A Map iterates in insertion order: re-inserting on use keeps the least recent first.
  const entries = new Map<SessionId, CacheEntry>();
  let hits = 0;
  let misses = 0;

  const remember = (sessionId: SessionId, entry: CacheEntry) => {
    entries.delete(sessionId);
    entries.set(sessionId, entry);
    while (entries.size > maxEntries) {
      const oldest = entries.keys().next();
      if (oldest.done === true) break;
      entries.delete(oldest.value);
    }
  };

  return {
    async loadVisibleChain(sessionId) {
      const session = await sources.getSession(sessionId);
      if (session === undefined) {
        entries.delete(sessionId);
        return [];
      }
      const leafId = session.currentLeafId;
      if (leafId === null) {
        entries.delete(sessionId);
        return [];
      }
      const cached = entries.get(sessionId);
      if (cached !== undefined && cached.leafId === leafId && cached.version === session.version) {
        hits += 1;
        remember(sessionId, cached);
        return cached.chain;
      }
      misses += 1;
      const chain = Object.freeze(await sources.loadChain(leafId));
      remember(sessionId, { leafId, version: session.version, chain });
      return chain;
    },
    prime(session, chain) {
      if (session.currentLeafId === null || chain.at(-1)?.id !== session.currentLeafId) return;
      remember(session.id, { leafId: session.currentLeafId, version: session.version, chain: Object.freeze([...chain]) });
    },
    invalidate(sessionId) {
      entries.delete(sessionId);
    },
    clear() {
      entries.clear();
    },
    stats: () => ({ hits, misses, size: entries.size }),
  };
}
