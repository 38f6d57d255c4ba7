import type { ContextKind, ContextMessage } from './types';

/** Anthropic accepts at most this many cache breakpoints in one request. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** What may open a request before the conversation (the cache-friendly order puts CA and P here). */
const HEAD_KINDS: ReadonlySet<ContextKind> = new Set(['system', 'custom_agent', 'project_files']);
/** What sits above the newest user message in its own turn, and so moves with it. */
const TURN_LEAD_KINDS: ReadonlySet<ContextKind> = new Set(['custom_agent', 'project_files', 'file']);

/**
 * Where the stable prefixes of a request end, as message indexes, for providers that cache
 * only up to a marked message (Anthropic's `cache_control`):
 *
 * 1. the end of the system prompt (with the tool definitions, which come before it);
 * 2. the end of the head, when the agent prompt and project files follow the system prompt;
 * 3. the last message of the earlier turns, which the next turn sends again unchanged;
 * 4. the last message before the reminders, so the next cycle of a tool loop, which sends the
 *    same messages plus its new step, reads all of this one from the cache.
 *
 * Reminders are never inside a cached prefix: they change from cycle to cycle.
 */
export function selectCacheBreakpoints(messages: readonly ContextMessage[]): number[] {
  const breakpoints: number[] = [];
  let systemEnd = -1;
  let headEnd = -1;
  for (let index = 0; index < messages.length; index++) {
    const kind = messages[index]?.kind;
    if (kind === undefined || !HEAD_KINDS.has(kind)) break;
    headEnd = index;
    if (kind === 'system' && systemEnd === index - 1) systemEnd = index;
  }
  if (systemEnd >= 0) breakpoints.push(systemEnd);
  if (headEnd > systemEnd) breakpoints.push(headEnd);

  let newestUser = -1;
  for (let index = messages.length - 1; index > headEnd; index--) {
    if (messages[index]?.kind === 'user') {
      newestUser = index;
      break;
    }
  }
  if (newestUser > headEnd) {
    let turnStart = newestUser;
    while (turnStart - 1 > headEnd && TURN_LEAD_KINDS.has(messages[turnStart - 1]?.kind ?? 'user'))
      turnStart--;
    if (turnStart - 1 > headEnd) breakpoints.push(turnStart - 1);
  }

  let lastStable = messages.length - 1;
  while (lastStable >= 0 && messages[lastStable]?.kind === 'reminder') lastStable--;
  if (lastStable > (breakpoints.at(-1) ?? -1)) breakpoints.push(lastStable);
  return breakpoints.slice(0, MAX_CACHE_BREAKPOINTS);
}
