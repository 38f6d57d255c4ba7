import { z } from 'zod';
import type { HttpFetcher, HttpResponse } from '../../../ports';
import { err, ok, type Result } from '../../../../util/result';

/** Search API answers are small JSON; anything larger is not a search answer. */
export const MAX_SEARCH_RESPONSE_BYTES = 2_000_000;
/** Results asked for when the model does not say. */
export const DEFAULT_SEARCH_RESULTS = 5;
export const MAX_SEARCH_RESULTS = 10;

export interface SearchResult {
  title: string;
  url: string;
  /** What the service says about the page (its excerpt); may be empty. */
  snippet: string;
  publishedDate?: string;
}

export type SearchFailureCode =
  'auth' | 'rate_limited' | 'unavailable' | 'bad_response' | 'network' | 'not_configured';

export interface SearchFailure {
  code: SearchFailureCode;
  message: string;
}

export interface SearchOptions {
  maxResults: number;
  signal: AbortSignal;
}

export interface SearchBackend {
  /** The service's name as the user sees it, e.g. "Tavily". */
  label: string;
  search(query: string, options: SearchOptions): Promise<Result<SearchResult[], SearchFailure>>;
}

/** The search services the user can configure (their own key or their own instance). */
export const searchBackendConfigSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('tavily'),
    apiKey: z.string().min(1),
    /** Defaults to https://api.tavily.com; a proxy or the mock server in tests. */
    baseUrl: z.url().optional(),
  }),
  z.object({
    kind: z.literal('exa'),
    apiKey: z.string().min(1),
    /** Defaults to https://api.exa.ai. */
    baseUrl: z.url().optional(),
  }),
  z.object({
    kind: z.literal('searxng'),
    /** The instance's root, e.g. https://search.example.org (JSON output must be enabled). */
    baseUrl: z.url(),
    /** Sent as is, for an instance behind basic auth or a token-checking proxy. */
    headers: z.record(z.string(), z.string()).default({}),
  }),
]);
export type SearchBackendConfig = z.infer<typeof searchBackendConfigSchema>;
export type SearchBackendKind = SearchBackendConfig['kind'];

/** Joins a base URL and a path without doubling or losing the slash. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/**
 * Sends one search request and parses the answer with `schema`; HTTP statuses become failures
 * the model can read (and the settings screen's Test button can show).
 */
export async function requestSearch<T>(
  http: HttpFetcher,
  label: string,
  url: string,
  init: {
    method: 'GET' | 'POST';
    headers: Record<string, string>;
    body?: string;
    signal: AbortSignal;
  },
  schema: z.ZodType<T>,
): Promise<Result<T, SearchFailure>> {
  const fetched = await http.fetch(url, { ...init, maxBytes: MAX_SEARCH_RESPONSE_BYTES });
  if (!fetched.ok) {
    return err({
      code: 'network',
      message: `${label} could not be reached: ${fetched.error.message}`,
    });
  }
  const statusFailure = describeStatus(label, fetched.value);
  if (statusFailure) return err(statusFailure);
  let json: unknown;
  try {
    json = JSON.parse(fetched.value.bodyText);
  } catch {
    return err({
      code: 'bad_response',
      message: `${label} answered with something that is not JSON.`,
    });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return err({
      code: 'bad_response',
      message: `${label} answered in an unexpected shape (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'unknown'}).`,
    });
  }
  return ok(parsed.data);
}

function describeStatus(label: string, response: HttpResponse): SearchFailure | null {
  const { status } = response;
  if (status >= 200 && status < 300) return null;
  if (status === 401 || status === 403) {
    return {
      code: 'auth',
      message: `${label} refused the request (HTTP ${status}): check the API key or access settings.`,
    };
  }
  if (status === 429)
    return {
      code: 'rate_limited',
      message: `${label} says too many requests (HTTP 429). Try again later.`,
    };
  return { code: 'unavailable', message: `${label} answered HTTP ${status}.` };
}
