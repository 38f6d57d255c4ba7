/**
 * The search_chats tool's view of the user's chats: the same MiniSearch index as the sidebar's
 * search (titles and messages, every branch), built in this worker from the database. Hits are
 * checked against the stored rows, so a chat deleted since the index was built is never cited.
 */
import type { ChatMessageSimple, MessageId, SessionId } from '../../core/model';
import { answerText } from '../../core/model';
import type { ChatHistoryHit, ChatHistorySearch, MessageStore, SearchIndex, SessionStore } from '../../core/ports';
import type { CarrelDb } from '../../storage/db';
import { watchTableWrites } from '../../storage/watch-writes';

/** Characters kept on each side of the first match: passages of up to about 1,200 characters. */
export const PASSAGE_RADIUS_CHARS = 600;

export interface ChatHistoryDeps {
  sessions: Pick<SessionStore, 'get'>;
  messages: Pick<MessageStore, 'get' | 'children'>;
  /** The current index (built on first use and again after the chats changed). */
  loadIndex(): Promise<SearchIndex>;
}

function messageText(message: ChatMessageSimple): string {
  return message.role === 'user' ? message.text : answerText(message);
}

/** The start of a chat's first message, for a chat found by its title alone. */
function openingPassage(text: string): string {
  const limit = PASSAGE_RADIUS_CHARS * 2;
  if (text.length <= limit) return text.trim();
  const cut = text.lastIndexOf(' ', limit);
  return `${text.slice(0, cut > 0 ? cut : limit).trim()}…`;
}

export function createChatHistorySearch(deps: ChatHistoryDeps): ChatHistorySearch {
  return {
    async search(queries, { excludeSessionId, limit }, signal) {
      const index = await deps.loadIndex();
      signal.throwIfAborted();
      // Each query's hits, merged: a message found by several queries keeps its best score.
      const best = new Map<string, { sessionId: SessionId; messageId: MessageId | null; snippet: string; score: number }>();
      for (const query of queries) {
        const hits = index.search(query, limit, {
          ...(excludeSessionId === null ? {} : { excludeSessionId }),
          snippetRadius: PASSAGE_RADIUS_CHARS,
        });
        for (const hit of hits) {
          const key = hit.messageId ?? `title:${hit.sessionId}`;
          const known = best.get(key);
          if (known === undefined || hit.score > known.score) best.set(key, hit);
        }
      }
      const ranked = [...best.values()].sort((a, b) => b.score - a.score);
      const found: ChatHistoryHit[] = [];
      const seen = new Set<string>();
      for (const hit of ranked) {
        if (found.length >= limit) break;
        signal.throwIfAborted();
        const session = await deps.sessions.get(hit.sessionId);
        if (!session || session.id === excludeSessionId) continue;
        // A title match points at the chat's first message.
        const message =
          hit.messageId === null
            ? (await deps.messages.children(session.id, null))[0]
            : await deps.messages.get(hit.messageId);
        if (!message || message.sessionId !== session.id || seen.has(message.id)) continue;
        const text = messageText(message);
        if (text.trim() === '') continue;
        seen.add(message.id);
        found.push({
          sessionId: session.id,
          messageId: message.id,
          title: session.title,
          role: message.role,
          ...(message.role === 'assistant' && message.model ? { model: message.model } : {}),
          createdAt: message.createdAt,
          passage: hit.messageId === null ? openingPassage(text) : hit.snippet,
        });
      }
      return found;
    },
  };
}

/**
 * The index over everything stored, built on first use and kept until a session or message
 * is written (in this worker, another worker or any tab): then it is built afresh on the next
 * search, as the sidebar's is, so a search never misses a chat written elsewhere. MiniSearch
 * is fetched with the first search.
 */
export function createChatIndexLoader(db: CarrelDb): () => Promise<SearchIndex> {
  let current: Promise<SearchIndex> | null = null;
  let isWatching = false;
  return () => {
    if (!isWatching) {
      isWatching = true;
      watchTableWrites(db, ['sessions', 'messages'], () => {
        current = null;
      });
    }
    const build = (current ??= (async () => {
      const { createSearchIndex, indexDatabase } = await import('../../storage/search-index');
      const index = createSearchIndex();
      await indexDatabase(db, index);
      return index;
    })());
    // A failed build is not kept: the next search tries again.
    build.catch(() => {
      if (current === build) current = null;
    });
    return build;
  };
}
