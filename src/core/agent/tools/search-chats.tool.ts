import { z } from 'zod';
import type { Agent, SessionId } from '../../model';
import type { ChatHistoryHit, ChatHistorySearch } from '../../ports';
import { MAX_SEARCH_QUERIES } from './search-project.tool';
import type { Tool, ToolDocument } from './tool';

export const SEARCH_CHATS_TOOL_NAME = 'search_chats';
/** Passages one call returns at most: about 2,500 tokens of the user's own history. */
export const MAX_CHAT_PASSAGES = 8;

const searchChatsInputSchema = z.object({
  queries: z
    .array(z.string().trim().min(1))
    .min(1)
    .max(MAX_SEARCH_QUERIES)
    .describe(
      'One to five short search queries, each phrased differently (keywords work best: names, terms, phrases the user may have used).',
    ),
});
export type SearchChatsInput = z.infer<typeof searchChatsInputSchema>;

/** Who said it and when, for the document's metadata: "You · 2026-11-20". */
function describeHit(hit: ChatHistoryHit): string {
  const speaker = hit.role === 'user' ? 'You' : `Answer by ${hit.model?.modelId ?? 'an assistant'}`;
  return `${speaker} · ${new Date(hit.createdAt).toISOString().slice(0, 10)}`;
}

/** A passage as a document the model cites; its citation opens the chat at the message. */
export function toChatDocument(hit: ChatHistoryHit): ToolDocument {
  return {
    title: hit.title.trim() === '' ? 'Untitled chat' : hit.title,
    metadata: describeHit(hit),
    contents: hit.passage,
    chat: { sessionId: hit.sessionId, messageId: hit.messageId },
  };
}

/**
 * Searches the user's other chats (titles and messages, every branch) with the app's local
 * chat search. The chat being answered is left out: its messages are in the context already.
 */
export function createSearchChatsTool(deps: {
  search: ChatHistorySearch;
  /** The chat the model is answering in. */
  excludeSessionId: SessionId | null;
}): Tool<SearchChatsInput> {
  return {
    name: SEARCH_CHATS_TOOL_NAME,
    description:
      "Searches the user's past chats in this app (other conversations, not this one) and returns the best matching messages, each with its chat's title, who wrote it and when.",
    usage:
      'Use search_chats when the user refers to something discussed in an earlier conversation ("like last time", "what did we decide about…") or when their past chats may hold the answer. Pass several phrasings at once.',
    isSearch: true,
    inputSchema: searchChatsInputSchema,
    async execute(input, { signal }) {
      const hits = await deps.search.search(
        input.queries,
        { excludeSessionId: deps.excludeSessionId, limit: MAX_CHAT_PASSAGES },
        signal,
      );
      return {
        kind: 'documents',
        documents: hits.map(toChatDocument),
        emptyNotice: `No other chat matched ${input.queries.map((query) => `"${query}"`).join(', ')}. Try other words, or answer without the user's history.`,
      };
    },
  };
}

/**
 * search_chats is opt-in: offered only to an agent whose tool list names it (never to the
 * built-in agent), and only where the history can be searched.
 */
export function selectChatTools(args: {
  agent: Pick<Agent, 'enabledTools'> | null;
  search: ChatHistorySearch | undefined;
  sessionId: SessionId | null;
}): Tool[] {
  if (!args.search || args.agent?.enabledTools.includes(SEARCH_CHATS_TOOL_NAME) !== true) return [];
  return [createSearchChatsTool({ search: args.search, excludeSessionId: args.sessionId })];
}
