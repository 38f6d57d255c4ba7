import type { SentRequest } from '../../core/agent/process-message';
import type { AssembledContext } from '../../core/context';

/** Questions whose last request is kept; older ones are forgotten first. */
export const KEPT_REQUESTS = 20;

/**
 * The requests this worker sent, by question: each assembled request of a question's first
 * model replaces the one before, so what is kept is the turn's final request, exactly as sent.
 */
export interface SentRequestLog {
  record(request: SentRequest): void;
  get(userMessageId: string): AssembledContext | undefined;
}

export function createSentRequestLog(limit = KEPT_REQUESTS): SentRequestLog {
  const byQuestion = new Map<string, AssembledContext>();
  return {
    record({ userMessageId, modelIndex, context }) {
      if (modelIndex !== 0) return;
      // Re-inserting moves the question to the newest end of the Map's order.
      byQuestion.delete(userMessageId);
      byQuestion.set(userMessageId, context);
      for (const oldest of byQuestion.keys()) {
        if (byQuestion.size <= limit) break;
        byQuestion.delete(oldest);
      }
    },
    get: (userMessageId) => byQuestion.get(userMessageId),
  };
}
