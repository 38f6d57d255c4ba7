import { REMINDER_TAG } from '../system-prompt/reminders.section';
import { buildFixedBlock, type ContextPart } from './part';

/** R: one user message at the very end, inside a reminder tag; never stored in history. */
export const reminderPart: ContextPart = {
  id: 'reminder',
  collect(env) {
    if (env.reminderLines.length === 0) return { blocks: [], dropped: [] };
    const text = [
      `<${REMINDER_TAG}>`,
      ...env.reminderLines.map((line) => `- ${line}`),
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
