import { z } from 'zod';
import type { HttpFetcher } from '../../../ports';
import { err, ok } from '../../../../util/result';
import { joinUrl, requestSearch, type SearchBackend } from './search-backend';

/** The fields we read of GET /search?format=json (https://docs.searxng.org/dev/search_api.html). */
export const searxngResponseSchema = z.object({
  results: z.array(
    z.object({
      title: z.string().nullish(),
      url: z.string(),
      content: z.string().nullish(),
      publishedDate: z.string().nullish(),
    }),
  ),
});

export function createSearxngBackend(
  config: { baseUrl: string; headers: Record<string, string> },
  http: HttpFetcher,
): SearchBackend {
  const label = 'SearXNG';
  return {
    label,
    async search(query, { maxResults, signal }) {
      const url = new URL(joinUrl(config.baseUrl, 'search'));
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const response = await requestSearch(
        http,
        label,
        url.href,
        { method: 'GET', headers: { accept: 'application/json', ...config.headers }, signal },
        searxngResponseSchema,
      );
      if (!response.ok) {
        // SearXNG answers 403 when the instance does not enable the JSON format.
        if (response.error.code === 'auth') {
          return err({
            ...response.error,
            message: `${response.error.message} SearXNG also answers 403 when "json" is missing from search.formats in its settings.yml.`,
          });
        }
        return response;
      }
      // SearXNG has no result-count parameter: it returns a page (about 10), cut here.
      return ok(
        response.value.results.slice(0, maxResults).map((result) => ({
          title: result.title || result.url,
          url: result.url,
          snippet: result.content ?? '',
          ...(result.publishedDate ? { publishedDate: result.publishedDate } : {}),
        })),
      );
    },
  };
}
