import type { AssistantMessage } from '../../core/model';
import type { Clock, MessageStore, TokenCounter } from '../../core/ports';
import type { SessionLocks } from './session-locks';

const INTERRUPTED_ERROR = { code: 'interrupted', message: 'The answer was cut off when the page closed.' };

/** What a tool call left running by a closed tab or killed worker reads as after recovery. */
const ORPHANED_TOOL_RESULT = 'The tool call was cut off when the page closed, before it returned.';

export interface RecoverDeps {
  messages: MessageStore;
  locks: SessionLocks;
  tokens: TokenCounter;
  clock: Clock;
}

/**
 * Marks answers left streaming as interrupted (one session, or all), unless a run holds the
 * session: `isHeldByThisRun` closes a session the caller itself holds. Returns how many.
 */
export async function recoverStreaming(
  deps: RecoverDeps,
  scope: { sessionId?: string; isHeldByThisRun?: boolean } = {},
): Promise<number> {
  let recovered = 0;
  for (const message of await deps.messages.listStreaming()) {
    if (message.role !== 'assistant') continue;
    if (scope.sessionId !== undefined && message.sessionId !== scope.sessionId) continue;
    if (scope.isHeldByThisRun !== true && (await deps.locks.isHeld(message.sessionId))) continue;
    await deps.messages.put({
      ...message,
      steps: closeOrphanedToolCalls(message.steps, deps.tokens),
      status: 'interrupted',
      stopReason: 'interrupted',
      error: message.error ?? INTERRUPTED_ERROR,
      updatedAt: deps.clock.now(),
    });
    recovered++;
  }
  return recovered;
}

/**
 * Tool calls still `pending` in an interrupted answer never get a result: mark them cancelled
 * with one, so the UI stops showing them as running and history holds no orphan.
 */
export function closeOrphanedToolCalls(steps: AssistantMessage['steps'], tokens: TokenCounter): AssistantMessage['steps'] {
  return steps.map((step) => ({
    ...step,
    toolCalls: step.toolCalls.map((call) =>
      call.status === 'pending' || call.result === undefined
        ? {
            ...call,
            status: 'cancelled' as const,
            result: { content: ORPHANED_TOOL_RESULT, tokenCount: tokens.count(ORPHANED_TOOL_RESULT), isError: true },
          }
        : call,
    ),
  }));
}
