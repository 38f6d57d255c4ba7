import type { HttpFailure, HttpFetcher, HttpRequest, HttpResponse } from '../../core/ports';
import { err, ok, type Result } from '../../util/result';

/** Redirect hops followed at most before giving up. */
export const MAX_REDIRECTS = 5;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface HttpFetcherOptions {
  /** Defaults to the global fetch (the worker's). */
  fetch?: FetchFunction;
}

/**
 * The `HttpFetcher` port over the platform's fetch. It never sends cookies or a referrer,
 * re-checks `request.checkUrl` on every redirect hop it can see, and stops reading a body at
 * `request.maxBytes`.
 *
 * Browser limits, honestly:
 * - With `redirect: 'manual'` a browser hides the target of a redirect (an "opaqueredirect"
 *   response). We then let the browser follow it and check the final `response.url`: the
 *   intermediate hops are invisible and the request to the final address has already been sent
 *   (without credentials) by the time we refuse its body. In Node (tests) hops are checked one
 *   by one before each is requested.
 * - A browser cannot resolve DNS: a public name resolving to a private address passes.
 * - Without CORS headers on the site, the browser refuses the response; that arrives here as a
 *   `network` failure, and a reader/proxy URL is the way around it.
 */
export function createHttpFetcher(options: HttpFetcherOptions = {}): HttpFetcher {
  const doFetch: FetchFunction = options.fetch ?? ((input, init) => fetch(input, init));

  async function send(
    url: string,
    request: HttpRequest,
    method: string,
    body: string | undefined,
    redirect: RequestRedirect,
  ) {
    try {
      return ok(
        await doFetch(url, {
          method,
          ...(request.headers ? { headers: { ...request.headers } } : {}),
          ...(body !== undefined ? { body } : {}),
          signal: request.signal,
          redirect,
          credentials: 'omit',
          referrerPolicy: 'no-referrer',
          cache: 'no-store',
        }),
      );
    } catch (error) {
      if (request.signal.aborted) throw request.signal.reason;
      return err(describeNetworkFailure(url, error));
    }
  }

  return {
    async fetch(url, request): Promise<Result<HttpResponse, HttpFailure>> {
      let current = url;
      let method = request.method ?? 'GET';
      let body = request.body;
      for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
        const refusal = request.checkUrl?.(current);
        if (refusal)
          return err({
            code: 'blocked',
            message: hop === 0 ? refusal : `The page redirected to ${current}. ${refusal}`,
          });
        const sent = await send(current, request, method, body, 'manual');
        if (!sent.ok) return sent;
        const response = sent.value;
        if (response.type === 'opaqueredirect')
          return followHiddenRedirect(current, request, method, body);
        const location = response.headers.get('location');
        if (REDIRECT_STATUSES.has(response.status) && location) {
          await response.body?.cancel();
          current = new URL(location, current).href;
          // 303, and 301/302 after a POST, continue as a GET without the body (as browsers do).
          if (response.status === 303 || (method === 'POST' && response.status <= 302)) {
            method = 'GET';
            body = undefined;
          }
          continue;
        }
        return ok(await readResponse(response, current, request.maxBytes));
      }
      return err({
        code: 'too_many_redirects',
        message: `${url} redirected more than ${MAX_REDIRECTS} times.`,
      });
    },
  };

  async function followHiddenRedirect(
    url: string,
    request: HttpRequest,
    method: string,
    body: string | undefined,
  ) {
    const sent = await send(url, request, method, body, 'follow');
    if (!sent.ok) return sent;
    const finalUrl = sent.value.url || url;
    const refusal = finalUrl === url ? null : request.checkUrl?.(finalUrl);
    if (refusal) {
      await sent.value.body?.cancel();
      return err<HttpFailure>({
        code: 'blocked',
        message: `The page redirected to ${finalUrl}. ${refusal}`,
      });
    }
    return ok(await readResponse(sent.value, finalUrl, request.maxBytes));
  }
}

async function readResponse(
  response: Response,
  requestedUrl: string,
  maxBytes: number,
): Promise<HttpResponse> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  const { bytes, isTruncated } = await readCapped(response, maxBytes);
  return {
    status: response.status,
    headers,
    url: response.url || requestedUrl,
    bodyText: decode(bytes, headers['content-type']),
    isTruncated,
  };
}

/** Reads at most `maxBytes`, then cancels the stream so the rest is never downloaded. */
async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; isTruncated: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(0), isTruncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let isTruncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - total;
    if (value.byteLength >= room) {
      chunks.push(value.subarray(0, room));
      total += room;
      // Exactly at the cap with nothing after it is not a truncation; peek once to know.
      isTruncated = value.byteLength > room || !(await reader.read()).done;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    total += value.byteLength;
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, isTruncated };
}

function decode(bytes: Uint8Array, contentType: string | undefined): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(bytes);
  } catch {
    // An unknown charset label: UTF-8 is the web's default and rarely wrong.
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function describeNetworkFailure(url: string, error: unknown): HttpFailure {
  const host = safeHost(url);
  const detail = error instanceof Error ? error.message : String(error);
  return {
    code: 'network',
    message: `Could not read ${host} (${detail}). The site may be down, or it does not let browsers read it (CORS).`,
  };
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
