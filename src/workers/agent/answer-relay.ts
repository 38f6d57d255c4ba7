/**
 * Answers streaming in one tab, live in every other tab showing the same chat. The agent worker
 * that runs a turn posts its packet batches on a BroadcastChannel, numbered; a tab that opens
 * the chat mid-stream asks for what was sent so far and gets it whole, then follows the numbered
 * batches after it, so no text is shown twice or lost. A tab that deletes a chat asks, on the
 * same channel, whichever worker runs it to stop.
 */
import { z } from 'zod';
import { packetSchema, type Packet } from '../../core/agent/packets';
import { sessionLockName } from './session-locks';

/** The channel every tab and agent worker of the origin shares. */
export const ANSWER_CHANNEL_NAME = 'carrel:answers';

const run = { sessionId: z.string().min(1), runId: z.string().min(1) };

export const relayMessageSchema = z.discriminatedUnion('kind', [
  /** Batch number `seq` (from 1) of a run's packets. */
  z.object({ kind: z.literal('packets'), ...run, seq: z.number().int().positive(), packets: z.array(packetSchema) }),
  /** Every packet of a run up to batch `seq`, for a tab that just asked. */
  z.object({ kind: z.literal('snapshot'), ...run, seq: z.number().int().nonnegative(), packets: z.array(packetSchema) }),
  /** The run is over and everything it wrote is stored. */
  z.object({ kind: z.literal('end'), ...run }),
  /** A tab opened the chat: whoever runs it, send what was streamed so far. */
  z.object({ kind: z.literal('sync'), sessionId: z.string().min(1) }),
  /** The chat is being deleted: whoever runs it, stop. */
  z.object({ kind: z.literal('stop'), sessionId: z.string().min(1) }),
]);
export type RelayMessage = z.infer<typeof relayMessageSchema>;

/** What the relay needs of a BroadcastChannel (tests pass an in-memory one). */
export interface RelayChannel {
  post(message: RelayMessage): void;
  /** Every message another context posted; returns the unsubscribe. */
  listen(onMessage: (message: unknown) => void): () => void;
}

export function openRelayChannel(name = ANSWER_CHANNEL_NAME): RelayChannel & { close(): void } {
  const channel = new BroadcastChannel(name);
  return {
    post: (message) => channel.postMessage(message),
    listen(onMessage) {
      const listener = (event: MessageEvent): void => onMessage(event.data);
      channel.addEventListener('message', listener);
      return () => channel.removeEventListener('message', listener);
    },
    close: () => channel.close(),
  };
}

/** The agent host's side: publishes its runs and answers other tabs' requests. */
export interface AnswerRelay {
  /** One batch of a run's packets, as its own tab got it. */
  publish(runId: string, packets: Packet[]): void;
  /** The run is over and saved: followers read the stored answer now. */
  end(runId: string): void;
  dispose(): void;
}

export function createAnswerRelay(channel: RelayChannel, onStopRequest: (sessionId: string) => void): AnswerRelay {
  /** Runs in progress: every packet so far, for a tab that joins mid-stream. */
  const runs = new Map<string, { sessionId: string | null; seq: number; packets: Packet[] }>();
  const unlisten = channel.listen((raw) => {
    const parsed = relayMessageSchema.safeParse(raw);
    if (!parsed.success) return;
    const message = parsed.data;
    if (message.kind === 'stop') onStopRequest(message.sessionId);
    if (message.kind !== 'sync') return;
    for (const [runId, entry] of runs) {
      if (entry.sessionId !== message.sessionId) continue;
      channel.post({ kind: 'snapshot', sessionId: entry.sessionId, runId, seq: entry.seq, packets: entry.packets });
    }
  });
  return {
    publish(runId, packets) {
      let entry = runs.get(runId);
      if (!entry) {
        entry = { sessionId: null, seq: 0, packets: [] };
        runs.set(runId, entry);
      }
      entry.seq++;
      entry.packets.push(...packets);
      for (const packet of packets) if (packet.obj.type === 'message_start') entry.sessionId ??= packet.obj.sessionId;
      if (entry.sessionId !== null) channel.post({ kind: 'packets', sessionId: entry.sessionId, runId, seq: entry.seq, packets });
    },
    end(runId) {
      const entry = runs.get(runId);
      runs.delete(runId);
      if (entry?.sessionId) channel.post({ kind: 'end', sessionId: entry.sessionId, runId });
    },
    dispose: unlisten,
  };
}

/** What a tab following a chat learns about runs in other tabs. */
export type FollowEvent =
  /** A run seen for the first time, or seen again whole: `packets` is everything so far. */
  | { kind: 'reset'; runId: string; packets: Packet[] }
  /** The next packets of a run already shown. */
  | { kind: 'packets'; runId: string; packets: Packet[] }
  /** The run is over: saved, or (`isCutOff`) its tab closed before it could save. */
  | { kind: 'end'; runId: string; isCutOff: boolean };

/**
 * The numbering rules of one followed chat, free of channels: takes the relay's messages in the
 * order they came and says what to show. A batch is shown only right after the one before it;
 * a run met mid-stream (or a lost batch) waits for a snapshot, asked for once.
 */
export class RunFollower {
  private readonly applied = new Map<string, number>();
  private readonly ended = new Set<string>();
  private readonly awaitingSnapshot = new Set<string>();

  constructor(
    readonly sessionId: string,
    private readonly requestSnapshot: () => void,
  ) {}

  receive(message: RelayMessage): FollowEvent | null {
    if (message.sessionId !== this.sessionId) return null;
    switch (message.kind) {
      case 'snapshot': {
        const applied = this.applied.get(message.runId);
        if (this.ended.has(message.runId) || (applied !== undefined && applied >= message.seq)) return null;
        this.applied.set(message.runId, message.seq);
        this.awaitingSnapshot.delete(message.runId);
        return { kind: 'reset', runId: message.runId, packets: message.packets };
      }
      case 'packets': {
        if (this.ended.has(message.runId)) return null;
        const applied = this.applied.get(message.runId);
        if (applied === undefined && message.seq === 1) {
          this.applied.set(message.runId, 1);
          return { kind: 'reset', runId: message.runId, packets: message.packets };
        }
        if (applied !== undefined && message.seq === applied + 1) {
          this.applied.set(message.runId, message.seq);
          return { kind: 'packets', runId: message.runId, packets: message.packets };
        }
        if (applied === undefined || message.seq > applied + 1) this.askForSnapshot(message.runId);
        return null;
      }
      case 'end':
        return this.endRun(message.runId, false);
      case 'sync':
      case 'stop':
        return null;
    }
  }

  /** The run's tab is gone (its session lock came free) without saying the run ended. */
  cutOff(runId: string): FollowEvent | null {
    return this.endRun(runId, true);
  }

  private endRun(runId: string, isCutOff: boolean): FollowEvent | null {
    if (this.ended.has(runId)) return null;
    this.ended.add(runId);
    this.awaitingSnapshot.delete(runId);
    const wasShown = this.applied.delete(runId);
    return wasShown ? { kind: 'end', runId, isCutOff } : null;
  }

  private askForSnapshot(runId: string): void {
    if (this.awaitingSnapshot.has(runId)) return;
    this.awaitingSnapshot.add(runId);
    this.requestSnapshot();
  }
}

/** The UI's side: follows one chat's runs in other tabs, and asks a chat's run to stop. */
export interface AnswerFeed {
  /** Calls `onEvent` for every run of the session in another tab (and this tab's own runs). */
  follow(sessionId: string, onEvent: (event: FollowEvent) => void): () => void;
  /** Asks whichever tab runs the session to stop it (the chat is being deleted). */
  stopSession(sessionId: string): void;
}

/**
 * `locks` tells when a run's tab is gone: waiting for the session's Web Lock ends when the tab
 * that held it closes, whether or not it said goodbye.
 */
export function createAnswerFeed(channel: RelayChannel, locks: LockManager | null): AnswerFeed {
  return {
    follow(sessionId, onEvent) {
      const follower = new RunFollower(sessionId, () => channel.post({ kind: 'sync', sessionId }));
      const watches = new Map<string, AbortController>();
      const emit = (event: FollowEvent | null): void => {
        if (!event) return;
        if (event.kind === 'reset' && locks && !watches.has(event.runId)) watchRun(event.runId);
        if (event.kind === 'end') {
          watches.get(event.runId)?.abort();
          watches.delete(event.runId);
        }
        onEvent(event);
      };
      const watchRun = (runId: string): void => {
        const controller = new AbortController();
        watches.set(runId, controller);
        locks
          ?.request(sessionLockName(sessionId), { signal: controller.signal }, () => {
            // Released at once: this tab only wanted to know that the lock came free.
            if (!controller.signal.aborted) emit(follower.cutOff(runId));
          })
          .catch(() => undefined);
      };
      const unlisten = channel.listen((raw) => {
        const parsed = relayMessageSchema.safeParse(raw);
        if (parsed.success) emit(follower.receive(parsed.data));
      });
      channel.post({ kind: 'sync', sessionId });
      return () => {
        unlisten();
        for (const controller of watches.values()) controller.abort();
        watches.clear();
      };
    },
    stopSession(sessionId) {
      channel.post({ kind: 'stop', sessionId });
    },
  };
}
