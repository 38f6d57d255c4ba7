import { z } from 'zod';
import type { HttpFetcher } from '../../../ports';
import { ok } from '../../../../util/result';
import { joinUrl, requestSearch, type SearchBackend } from './search-backend';

export const EXA_BASE_URL = 'https://api.exa.ai';
/** Exa returns page text when asked; a snippet-sized excerpt keeps the tool result small. */
const EXA_TEXT_CHARACTERS = 600;

/** The fields we read of POST /search (https://docs.exa.ai/reference/search). */
export const exaResponseSchema = z.object({
  results: z.array(
    z.object({
      title: z.string().nullish(),
      url: z.string(),
      publishedDate: z.string().nullish(),
      text: z.string().nullish(),
      highlights: z.array(z.string()).nullish(),
      summary: z.string().nullish(),
    }),
  ),
});

export function createExaBackend(
  config: { apiKey: string; baseUrl?: string | undefined },
  http: HttpFetcher,
): SearchBackend {
  const label = 'Exa';
  return {
    label,
    async search(query, { maxResults, signal }) {
      const response = await requestSearch(
        http,
        label,
        joinUrl(config.baseUrl ?? EXA_BASE_URL, 'search'),
        {
          method: 'POST',
          headers: { 'x-api-key': config.apiKey, 'content-type': 'application/json' },
          // Content options must sit under "contents"; at the top level Exa answers 400.
          body: JSON.stringify({
            query,
            numResults: maxResults,
            type: 'auto',
            contents: { highlights: true, text: { maxCharacters: EXA_TEXT_CHARACTERS } },
          }),
          signal,
        },
        exaResponseSchema,
      );
      if (!response.ok) return response;
      return ok(
        response.value.results.map((result) => ({
          title: result.title || result.url,
          url: result.url,
          snippet: result.highlights?.join(' … ') || result.summary || result.text || '',
          ...(result.publishedDate ? { publishedDate: result.publishedDate } : {}),
        })),
      );
    },
  };
}
