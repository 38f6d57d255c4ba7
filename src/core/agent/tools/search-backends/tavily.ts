import { z } from 'zod';
import type { HttpFetcher } from '../../../ports';
import { ok } from '../../../../util/result';
import { joinUrl, requestSearch, type SearchBackend } from './search-backend';

export const TAVILY_BASE_URL = 'https://api.tavily.com';

/** The fields we read of POST /search (https://docs.tavily.com, Search endpoint). */
export const tavilyResponseSchema = z.object({
  results: z.array(
    z.object({
      title: z.string().nullish(),
      url: z.string(),
      content: z.string().nullish(),
      published_date: z.string().nullish(),
    }),
  ),
});

export function createTavilyBackend(
  config: { apiKey: string; baseUrl?: string | undefined },
  http: HttpFetcher,
): SearchBackend {
  const label = 'Tavily';
  return {
    label,
    async search(query, { maxResults, signal }) {
      const response = await requestSearch(
        http,
        label,
        joinUrl(config.baseUrl ?? TAVILY_BASE_URL, 'search'),
        {
          method: 'POST',
          headers: { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            query,
            max_results: maxResults,
            search_depth: 'basic',
            include_answer: false,
          }),
          signal,
        },
        tavilyResponseSchema,
      );
      if (!response.ok) return response;
      return ok(
        response.value.results.map((result) => ({
          title: result.title || result.url,
          url: result.url,
          snippet: result.content ?? '',
          ...(result.published_date ? { publishedDate: result.published_date } : {}),
        })),
      );
    },
  };
}
