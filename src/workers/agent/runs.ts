/**
 * The runs a worker has going: each send holds its session's Web Lock for the whole turn (a
 * second tab cannot start another), batches its packets to the caller and to other tabs, can be
 * stopped by run id or session id (or one model of it), and leaves no answer marked streaming
 * when it fails.
 */
import { ModelAborts, type SendMessageRequest, type TurnResult } from '../../core/agent/process-message';
import type { PacketSink } from '../../core/agent/emitter';
import type { ConfirmationPort } from '../../core/ports';
import type { WorkerError, WorkerResult } from '../protocol';
import type { ConfirmListener, PacketListener } from './agent.api';
import { createAnswerRelay, type RelayChannel } from './answer-relay';
import { createPacketBatcher } from './packet-batcher';
import type { SessionLocks } from './session-locks';
import { toWorkerError } from './worker-errors';

const SESSION_BUSY: WorkerError = {
  code: 'session_busy',
  message: 'This chat is answering in another tab. Wait for it to finish there, or stop it there.',
};

/** Without a person to ask (no UI callback), a risky tool call is refused. */
const REFUSE_ALL: ConfirmationPort = { requestConfirmation: () => Promise.resolve(false) };

export interface RunsDeps {
  locks: SessionLocks;
  /** Where runs are relayed to other tabs and deletions ask this tab to stop; null keeps runs private. */
  relay: RelayChannel | null;
  /** Runs one turn (processMessage over the host's stores). */
  runTurn(
    request: SendMessageRequest,
    run: { sink: PacketSink; signal: AbortSignal; modelAborts: ModelAborts; confirmation: ConfirmationPort },
  ): Promise<TurnResult>;
  /** Closes the answers a failed run left streaming in its session. */
  closeInterrupted(sessionId: string): Promise<unknown>;
}

export interface Runs {
  send(
    runId: string,
    request: SendMessageRequest,
    onPackets: PacketListener,
    onConfirm?: ConfirmListener,
  ): Promise<WorkerResult<TurnResult>>;
  /** Stops a run by run id or session id; the partial answer is kept, marked stopped. */
  stop(runIdOrSessionId: string): void;
  stopModel(runId: string, modelIndex: number): void;
  /** Sessions with a run going in this worker. */
  sessionIds(): string[];
}

export function createRuns(deps: RunsDeps): Runs {
  const runs = new Map<string, AbortController>();
  const modelAbortsByRun = new Map<string, ModelAborts>();
  const runBySession = new Map<string, string>();
  const stop = (runIdOrSessionId: string): void => {
    runs.get(runBySession.get(runIdOrSessionId) ?? runIdOrSessionId)?.abort();
  };
  const relay = deps.relay ? createAnswerRelay(deps.relay, stop) : null;

  async function send(
    runId: string,
    request: SendMessageRequest,
    onPackets: PacketListener,
    onConfirm?: ConfirmListener,
  ): Promise<WorkerResult<TurnResult>> {
    // An existing session is locked before anything is written; a new one as soon as it exists.
    const releases: Array<() => void> = [];
    if (typeof request.sessionId === 'string') {
      const release = await deps.locks.tryAcquire(request.sessionId);
      if (!release) return { ok: false, error: SESSION_BUSY };
      releases.push(release);
    }
    const controller = new AbortController();
    runs.set(runId, controller);
    const modelAborts = new ModelAborts();
    modelAbortsByRun.set(runId, modelAborts);
    const batcher = createPacketBatcher((packets) => {
      onPackets(packets);
      relay?.publish(runId, packets);
    });
    const sink: PacketSink = (packet) => {
      if (packet.obj.type === 'message_start' && !runBySession.has(packet.obj.sessionId)) {
        runBySession.set(packet.obj.sessionId, runId);
        if (releases.length === 0) {
          void deps.locks.tryAcquire(packet.obj.sessionId).then((release) => {
            if (release) releases.push(release);
          });
        }
      }
      batcher.push(packet);
    };
    let failedSessionId: string | null = null;
    try {
      const confirmation: ConfirmationPort = onConfirm ? { requestConfirmation: (r) => onConfirm(r) } : REFUSE_ALL;
      const value = await deps.runTurn(request, { sink, signal: controller.signal, modelAborts, confirmation });
      return { ok: true as const, value };
    } catch (error) {
      failedSessionId = [...runBySession].find(([, id]) => id === runId)?.[0] ?? request.sessionId;
      return { ok: false as const, error: toWorkerError(error) };
    } finally {
      batcher.flush();
      runs.delete(runId);
      modelAbortsByRun.delete(runId);
      for (const [sessionId, id] of runBySession) if (id === runId) runBySession.delete(sessionId);
      // A failed final save (storage full or failing) leaves the answer at its last checkpoint,
      // still marked streaming: close it as interrupted while this run still holds the session
      // (if storage lets us; otherwise the next start's recovery does it).
      if (failedSessionId) {
        await deps.closeInterrupted(failedSessionId).catch((error: unknown) =>
          console.warn('Could not close the interrupted answer:', error),
        );
      }
      // Before the lock is free: a tab that sees it free without this reads the run as cut off.
      relay?.end(runId);
      for (const release of releases) release();
    }
  }

  return {
    send,
    stop,
    stopModel: (runId, modelIndex) => modelAbortsByRun.get(runId)?.stopModel(modelIndex),
    sessionIds: () => [...runBySession.keys()],
  };
}
