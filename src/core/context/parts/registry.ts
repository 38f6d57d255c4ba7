import type { ContextOrder } from '../../model';
import { customAgentPart } from './custom-agent.part';
import { historyPart } from './history.part';
import { newestTurnPart } from './newest-turn.part';
import type { ContextPart } from './part';
import { projectFilesPart } from './project-files.part';
import { reminderPart } from './reminder.part';
import { systemPart } from './system.part';

/**
 * The context, in order: S, earlier turns, then CA, P, and the newest turn (F, U, steps), then R
 * (in each turn, CA comes before P, which comes before F). One line per source.
 */
export const CONTEXT_PARTS: readonly ContextPart[] = [
  systemPart,
  historyPart,
  customAgentPart,
  projectFilesPart,
  newestTurnPart,
  reminderPart,
];

/**
 * The cache-friendly order: S, then CA and P right after it, then the chat, the newest turn and
 * R. The start of the request (tools, S, CA, P and the earlier turns) stays the same from turn
 * to turn, so the providers' prompt caches can serve it; the price is that the agent prompt
 * and the project files sit far from the question in a long chat.
 */
export const CACHE_FRIENDLY_CONTEXT_PARTS: readonly ContextPart[] = [
  systemPart,
  customAgentPart,
  projectFilesPart,
  historyPart,
  newestTurnPart,
  reminderPart,
];

/** The parts in the order an agent asked for (`recency` when it did not say). */
export function selectContextParts(order: ContextOrder | undefined): readonly ContextPart[] {
  return order === 'cache_friendly' ? CACHE_FRIENDLY_CONTEXT_PARTS : CONTEXT_PARTS;
}
