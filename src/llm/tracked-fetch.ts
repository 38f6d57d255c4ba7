import type { FetchFunction } from './create-language-model';
import { isAbortError } from './errors';

/** What one attempt's fetch saw, for error classification. */
export interface FetchTracker {
  /** The fetch itself rejected (not an HTTP error): offline, CORS, or nothing listening. */
  hasNetworkFailure: boolean;
  /** The body broke off after the response had started (a reset connection, not an abort). */
  hasConnectionLost: boolean;
  /** Called whenever bytes arrive (keep-alive comments included), for the stall watchdog. */
  onActivity?: () => void;
  /** A streaming request answered with one JSON body: the body, and how to rebuild it. */
  plainAnswer?: { body: string; init: ResponseInit };
}

function isJsonResponse(response: Response): boolean {
  const contentType = response.headers.get('content-type') ?? '';
  return response.ok && /\bjson\b/i.test(contentType) && !/ndjson/i.test(contentType);
}

/**
 * The text after the last blank line, if it is an event the server finished writing but never
 * closed with a blank line, and the line ends that close it; else the empty string. An event
 * counts as finished when its `data:` lines hold complete JSON (every provider's events are JSON
 * objects), so a stream cut in the middle of an event still drops that event and stays cut off.
 */
export function closeFinalEvent(tail: string): string {
  // A lone CR may be the first half of a CRLF, so the parser waits for a byte that never comes.
  const pendingLf = tail.endsWith('\r') ? '\n' : '';
  return pendingLf + closeWithBlankLine(tail.replace(/\r\n|\r/g, '\n'));
}

function closeWithBlankLine(text: string): string {
  if (text.length === 0 || text.endsWith('\n\n')) return '';
  const lastEvent = text.slice(text.lastIndexOf('\n\n') + 1);
  const data = lastEvent
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    .join('\n');
  if (data.trim().length === 0) return '';
  try {
    JSON.parse(data);
  } catch {
    return '';
  }
  return text.endsWith('\n') ? '\n' : '\n\n';
}

/** Where the last blank line in `text` ends, or -1. */
function findEventBoundary(text: string): number {
  const lf = text.lastIndexOf('\n\n');
  const crlf = text.lastIndexOf('\r\n\r\n');
  return Math.max(lf < 0 ? -1 : lf + 2, crlf < 0 ? -1 : crlf + 4);
}

/**
 * The text after the last blank line of a stream read chunk by chunk, for `closeFinalEvent`.
 * Each chunk is searched alone (with the few characters before it that a blank line may start
 * in), and the pieces are joined only once at the end, so a 10 MB event costs one pass.
 */
function createEventTail() {
  let pieces: string[] = [];
  let before = '';
  return {
    add(text: string): void {
      const probe = before + text;
      const boundary = findEventBoundary(probe);
      if (boundary >= 0) pieces = [probe.slice(boundary)];
      else pieces.push(text);
      before = probe.slice(-3);
    },
    text: (): string => pieces.join(''),
  };
}

function createAbortError(): DOMException {
  return new DOMException('The request was aborted.', 'AbortError');
}

/**
 * Re-wraps the body so an abort always reaches the network reader: the underlying body is
 * cancelled (which closes the connection) and whoever reads ours gets an AbortError at once,
 * instead of waiting for the next chunk the server may never send.
 */
function releaseBodyOnAbort(
  response: Response,
  signal: AbortSignal,
  tracker: FetchTracker,
): Response {
  const source = response.body;
  if (source === null) return response;
  const reader = source.getReader();
  let isSettled = false;
  const decoder = new TextDecoder();
  const tail = createEventTail();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const onAbort = () => {
        if (isSettled) return;
        isSettled = true;
        reader.cancel(signal.reason).catch(() => undefined);
        controller.error(createAbortError());
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    },
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        tracker.onActivity?.();
        if (isSettled) return;
        if (done) {
          isSettled = true;
          // A server may end its body without the blank line that closes the last event (or,
          // with CRLF framing, on a lone CR the parser holds back as half a line end). The SSE
          // parser then never dispatches it, and a complete answer whose last event said "done"
          // (Anthropic's message_stop) would look cut off. Close that event for the parser.
          const closing = closeFinalEvent(tail.text() + decoder.decode());
          if (closing.length > 0) controller.enqueue(new TextEncoder().encode(closing));
          controller.close();
        } else {
          tail.add(decoder.decode(value, { stream: true }));
          controller.enqueue(value);
        }
      } catch (error) {
        if (isSettled) return;
        isSettled = true;
        if (!signal.aborted && !isAbortError(error)) tracker.hasConnectionLost = true;
        controller.error(error);
      }
    },
    cancel(reason) {
      isSettled = true;
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** A fetch bound to one attempt's abort signal, recording network failures. */
export function createTrackedFetch(
  base: FetchFunction,
  tracker: FetchTracker,
  signal: AbortSignal,
): FetchFunction {
  return async (input, init) => {
    let response: Response;
    try {
      response = await base(input, { ...init, signal });
    } catch (error) {
      if (!signal.aborted && !isAbortError(error) && error instanceof TypeError)
        tracker.hasNetworkFailure = true;
      throw error;
    }
    tracker.onActivity?.();
    if (isJsonResponse(response)) {
      // Every request made here asked for a stream. A server that ignores that sends the whole
      // answer as JSON, which no event parser reads: keep it for the client to read whole, and
      // hand the SDK an empty stream in its place.
      const body = await response.text();
      tracker.onActivity?.();
      const init = {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      };
      tracker.plainAnswer = { body, init };
      return new Response('', { status: 200, headers: { 'content-type': 'text/event-stream' } });
    }
    return releaseBodyOnAbort(response, signal, tracker);
  };
}
