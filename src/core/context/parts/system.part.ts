import { buildSystemPrompt } from '../system-prompt/registry';
import { buildFixedBlock, type ContextPart } from './part';

/** S: our sectioned prompt, the user's override, or a replacing agent prompt; always first. */
export const systemPart: ContextPart = {
  id: 'system',
  collect(env) {
    const text = buildSystemPrompt(env.sectionContext, env.systemOverride, env.placeholders);
    const block = buildFixedBlock(
      {
        kind: 'system',
        tokens: env.meter.priceMessage(env.meter.countText(text)),
        message: { role: 'system', content: text },
        ...(env.isSystemReplacedByAgent
          ? { label: 'custom agent prompt (replaces the system prompt)' }
          : {}),
      },
      'system',
    );
    return { blocks: [block], dropped: [] };
  },
};
