import type { AssistantStep } from '../../model';
import { REMINDER_TAG } from '../system-prompt/reminders.section';
import type { ContextTool } from '../types';
import { buildFixedBlock, type ContextPart } from './part';

/** The web tools' names, repeated here so the context engine does not import the agent's tools. */
const WEB_SEARCH_TOOL = 'web_search';
const OPEN_URL_TOOL = 'open_url';

/** After a web search, the model is nudged to read the best pages before answering. */
export const OPEN_RESULTS_REMINDER =
  'Search results only show excerpts: open the most promising pages with open_url (several in one call) before answering, unless the excerpts already answer the question.';

/**
 * True when this turn's latest web search found something, open_url is offered in this cycle
 * and no page has been opened since that search.
 */
export function shouldSuggestOpeningResults(
  turnSteps: readonly AssistantStep[],
  tools: readonly ContextTool[],
): boolean {
  if (!tools.some((tool) => tool.name === OPEN_URL_TOOL)) return false;
  let isWaiting = false;
  for (const call of turnSteps.flatMap((step) => step.toolCalls)) {
    if (call.name === WEB_SEARCH_TOOL && (call.result?.documents?.length ?? 0) > 0)
      isWaiting = true;
    if (call.name === OPEN_URL_TOOL) isWaiting = false;
  }
  return isWaiting;
}

/** R: one user message at the very end, inside a reminder tag; never stored in history. */
export const reminderPart: ContextPart = {
  id: 'reminder',
  collect(env) {
    const lines = [
      ...env.reminderLines,
      ...(shouldSuggestOpeningResults(env.input.turnSteps ?? [], env.input.tools)
        ? [OPEN_RESULTS_REMINDER]
        : []),
    ];
    if (lines.length === 0) return { blocks: [], dropped: [] };
    const text = [
      `<${REMINDER_TAG}>`,
      ...lines.map((line) => `- ${line}`),
      `</${REMINDER_TAG}>`,
    ].join('\n');
    const block = buildFixedBlock(
      {
        kind: 'reminder',
        tokens: env.meter.priceMessage(env.meter.countText(text)),
        message: { role: 'user', content: text },
      },
      'reminder',
    );
    return { blocks: [block], dropped: [] };
  },
};
