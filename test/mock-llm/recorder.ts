// The request log: every request the mock sees, plus which LLM responses are still open.
// Tests read it to assert what the app sent and that a Stop really closed the stream.

import type { LlmProvider } from './protocols/protocol';
import type { ScenarioKind } from './scenarios';

export type RequestProvider = LlmProvider | 'control' | 'other';

export interface RecordedRequest {
  /** 1, 2, 3… in arrival order (not reset by clearRequests). */
  id: number;
  method: string;
  path: string;
  query: Record<string, string>;
  /** Lower-cased names, values exactly as sent (repeated headers joined with ", "). */
  headers: Record<string, string>;
  /** Parsed JSON when the body is JSON, else the text; undefined when empty. */
  body: unknown;
  rawBody: string;
  provider: RequestProvider;
  isPreflight: boolean;
  /** Which scenario answered (LLM generation requests only). */
  scenario?: ScenarioKind;
  /** Status code sent (or about to be sent) when the response ended. */
  status?: number;
  startedAt: number;
  endedAt?: number;
  /** The client went away before the response was complete (e.g. the user pressed Stop). */
  closedByClient: boolean;
  /** The server wrote the whole response. */
  completed: boolean;
  /**
   * What the server has written of a streamed body so far (event streams and replays), as
   * text; it grows while the stream runs. Tests read it to know what was sent before a fault.
   */
  streamedBody: string;
}

export type NewRequest = Omit<
  RecordedRequest,
  'id' | 'closedByClient' | 'completed' | 'streamedBody'
>;

export interface StreamState {
  openStreams: number;
  /** Streams the client closed early, since the last clearRequests(). */
  closedByClient: number;
  /** Streams the server finished, since the last clearRequests(). */
  completedStreams: number;
}

interface Waiter {
  isSatisfied: () => boolean;
  resolve: () => void;
}

export interface RequestLog {
  add(request: NewRequest): RecordedRequest;
  /** Counts the response as an open stream until `end` is called for it. */
  markStream(record: RecordedRequest): void;
  /** Appends a frame the server just wrote to the record's streamedBody. */
  noteWritten(record: RecordedRequest, frame: string | Uint8Array): void;
  end(record: RecordedRequest, isFinished: boolean, status: number): void;
  setShuttingDown(): void;
  list(): RecordedRequest[];
  clear(): void;
  state(): StreamState;
  waitForRequest(
    predicate: (request: RecordedRequest) => boolean,
    timeoutMs: number,
  ): Promise<RecordedRequest>;
  waitForClosed(timeoutMs: number): Promise<void>;
}

/** Resolves when `isSatisfied()` holds, checking after every log change; rejects on timeout. */
function waitUntil(
  waiters: Set<Waiter>,
  isSatisfied: () => boolean,
  timeoutMs: number,
  describe: () => string,
): Promise<void> {
  if (isSatisfied()) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const waiter: Waiter = {
      isSatisfied,
      resolve: () => {
        clearTimeout(timer);
        resolve();
      },
    };
    const timer = setTimeout(() => {
      waiters.delete(waiter);
      reject(new Error(`mock-llm: timed out after ${timeoutMs} ms waiting for ${describe()}`));
    }, timeoutMs);
    waiters.add(waiter);
  });
}

export function createRequestLog(): RequestLog {
  let records: RecordedRequest[] = [];
  let nextId = 1;
  const openStreams = new Set<RecordedRequest>();
  let closedByClient = 0;
  let completedStreams = 0;
  let isShuttingDown = false;
  const waiters = new Set<Waiter>();
  // Replays may be cut mid-character: one streaming decoder per response keeps the text whole.
  const decoders = new WeakMap<RecordedRequest, TextDecoder>();

  function notify(): void {
    for (const waiter of waiters) {
      if (!waiter.isSatisfied()) continue;
      waiters.delete(waiter);
      waiter.resolve();
    }
  }

  const snapshot = (record: RecordedRequest): RecordedRequest => ({ ...record });

  return {
    add(request) {
      const record: RecordedRequest = {
        ...request,
        id: nextId++,
        closedByClient: false,
        completed: false,
        streamedBody: '',
      };
      records.push(record);
      notify();
      return record;
    },

    markStream(record) {
      if (record.endedAt !== undefined) return;
      openStreams.add(record);
      notify();
    },

    noteWritten(record, frame) {
      if (typeof frame === 'string') {
        record.streamedBody += frame;
        return;
      }
      const decoder = decoders.get(record) ?? new TextDecoder();
      decoders.set(record, decoder);
      record.streamedBody += decoder.decode(frame, { stream: true });
    },

    end(record, isFinished, status) {
      record.endedAt = Date.now();
      record.status = status;
      record.completed = isFinished;
      // Connections the server tears down in close() are not the client's doing.
      record.closedByClient = !isFinished && !isShuttingDown;
      if (openStreams.delete(record)) {
        if (record.closedByClient) closedByClient++;
        if (record.completed) completedStreams++;
      }
      notify();
    },

    setShuttingDown() {
      isShuttingDown = true;
    },

    list: () => records.map(snapshot),

    clear() {
      records = [];
      closedByClient = 0;
      completedStreams = 0;
    },

    state: () => ({ openStreams: openStreams.size, closedByClient, completedStreams }),

    async waitForRequest(predicate, timeoutMs) {
      const find = (): RecordedRequest | undefined => records.find(predicate);
      await waitUntil(
        waiters,
        () => find() !== undefined,
        timeoutMs,
        () => `a matching request (seen ${records.length})`,
      );
      const found = find();
      if (found === undefined) throw new Error('mock-llm: matching request disappeared');
      return snapshot(found);
    },

    waitForClosed(timeoutMs) {
      return waitUntil(
        waiters,
        () => openStreams.size === 0 && closedByClient > 0,
        timeoutMs,
        () =>
          `the client to close its streams (open ${openStreams.size}, closed by client ${closedByClient})`,
      );
    },
  };
}
