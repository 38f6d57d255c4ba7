import type { HttpFetcher } from '../../../ports';
import { ok, type Result } from '../../../../util/result';
import { createExaBackend } from './exa';
import type { SearchBackend, SearchBackendConfig, SearchFailure } from './search-backend';
import { createSearxngBackend } from './searxng';
import { createTavilyBackend } from './tavily';

export * from './search-backend';
export { createExaBackend, EXA_BASE_URL } from './exa';
export { createSearxngBackend } from './searxng';
export { createTavilyBackend, TAVILY_BASE_URL } from './tavily';

export function createSearchBackend(config: SearchBackendConfig, http: HttpFetcher): SearchBackend {
  switch (config.kind) {
    case 'tavily':
      return createTavilyBackend(config, http);
    case 'exa':
      return createExaBackend(config, http);
    case 'searxng':
      return createSearxngBackend(config, http);
  }
}

/** The settings screen's Test button: one small real search with the user's settings. */
export async function testSearchBackend(
  config: SearchBackendConfig,
  http: HttpFetcher,
  signal: AbortSignal,
): Promise<Result<{ resultCount: number }, SearchFailure>> {
  const found = await createSearchBackend(config, http).search(TEST_QUERY, {
    maxResults: 1,
    signal,
  });
  return found.ok ? ok({ resultCount: found.value.length }) : found;
}

/** A query any web search answers. */
const TEST_QUERY = 'wikipedia';
