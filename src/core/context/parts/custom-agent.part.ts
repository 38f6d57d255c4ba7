import { buildFixedBlock, type ContextPart } from './part';

/** CA: a user message just above the newest turn, so it moves down as the chat grows. */
export const customAgentPart: ContextPart = {
  id: 'custom_agent',
  collect(env) {
    if (env.customAgentText === null) return { blocks: [], dropped: [] };
    const block = buildFixedBlock(
      {
        kind: 'custom_agent',
        tokens: env.meter.priceMessage(env.meter.countText(env.customAgentText)),
        message: { role: 'user', content: env.customAgentText },
        ...(env.customAgentLabel ? { label: env.customAgentLabel } : {}),
      },
      'custom_agent',
    );
    return { blocks: [block], dropped: [] };
  },
};
