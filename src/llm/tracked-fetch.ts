import type { FetchFunction } from './create-language-model';
import { isAbortError } from './errors';

/** What one attempt's fetch saw, for error classification. */
export interface FetchTracker {
  /** The fetch itself rejected (not an HTTP error): offline, CORS, or nothing listening. */
  hasNetworkFailure: boolean;
  /** Called whenever bytes arrive (keep-alive comments included), for the stall watchdog. */
  onActivity?: () => void;
}

const CR = 0x0d;
const LF = 0x0a;

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
  onActivity: (() => void) | undefined,
): Response {
  const source = response.body;
  if (source === null) return response;
  const reader = source.getReader();
  let isSettled = false;
  let endsWithCr = false;
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
        onActivity?.();
        if (isSettled) return;
        if (done) {
          isSettled = true;
          // A lone CR may still be the first half of a CRLF, so the SSE parser holds the event
          // it ends until the next byte, which never comes: the last token of a cut-off stream
          // was lost. An LF after a final CR keeps the line end and lets the event through.
          if (endsWithCr) controller.enqueue(new Uint8Array([LF]));
          controller.close();
        } else {
          if (value.length > 0) endsWithCr = value[value.length - 1] === CR;
          controller.enqueue(value);
        }
      } catch (error) {
        if (isSettled) return;
        isSettled = true;
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
    return releaseBodyOnAbort(response, signal, tracker.onActivity);
  };
}
