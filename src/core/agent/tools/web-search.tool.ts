import { z } from 'zod';
import { toUrlKey } from './number-documents';
import { DEFAULT_SEARCH_RESULTS, MAX_SEARCH_RESULTS, type SearchBackend } from './search-backends';
import type { Tool } from './tool';

export const WEB_SEARCH_TOOL_NAME = 'web_search';

/** What the model reads when nothing was found: searching again rarely helps. */
export const NO_RESULTS_NOTICE =
  'The web search found no results for this query. Do not search again for the same thing: answer with what you already know and say that the web search found nothing.';

export const webSearchInputSchema = z.object({
  query: z
    .string()
    .trim()
    .min(1, 'The query is empty.')
    .max(400, 'Keep the query under 400 characters.'),
  max_results: z.number().int().min(1).max(MAX_SEARCH_RESULTS).optional(),
});
export type WebSearchInput = z.infer<typeof webSearchInputSchema>;

export interface WebSearchDeps {
  backend: SearchBackend;
  /** Filled with the URLs found (toUrlKey form), so open_url knows they came from a search. */
  searchedUrls: Set<string>;
}

/**
 * web_search: asks the user's search service and returns each result as a document
 * with its URL, so open_url can read the promising ones. Failures are results the model reads.
 */
export function createWebSearchTool(deps: WebSearchDeps): Tool<WebSearchInput> {
  return {
    name: WEB_SEARCH_TOOL_NAME,
    description:
      'Searches the web. Returns results with their title, URL and an excerpt; read a full page with open_url.',
    usage:
      'find current or specific information on the web. Use short keyword queries; then open the most promising results with open_url before answering.',
    isSearch: true,
    inputSchema: webSearchInputSchema,
    async execute(input, { signal }) {
      const found = await deps.backend.search(input.query, {
        maxResults: input.max_results ?? DEFAULT_SEARCH_RESULTS,
        signal,
      });
      if (!found.ok)
        return {
          kind: 'text',
          content: `The web search failed: ${found.error.message}`,
          isError: true,
        };
      for (const result of found.value) deps.searchedUrls.add(toUrlKey(result.url));
      return {
        kind: 'documents',
        emptyNotice: NO_RESULTS_NOTICE,
        documents: found.value.map((result) => ({
          title: result.title,
          url: result.url,
          metadata: [
            `URL: ${result.url}`,
            ...(result.publishedDate ? [`published ${result.publishedDate}`] : []),
          ].join(' · '),
          contents: result.snippet.trim() || 'No excerpt: open the page with open_url to read it.',
        })),
      };
    },
  };
}
