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
