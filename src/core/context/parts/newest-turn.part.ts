import { priceAssistantSteps } from '../render/render-assistant';
import { priceUserMessage } from '../render/render-user';
import type { Block, ContextPart } from './part';

/**
 * The newest user message (its files F just above it) and everything after it in this turn:
 * stored assistant steps and the loop's unsaved steps, tool results in full. All required.
 */
export const newestTurnPart: ContextPart = {
  id: 'newest_turn',
  collect(env) {
    const blocks: Block[] = [];
    for (let index = env.anchorIndex; index < env.conversation.length; index++) {
      const message = env.conversation[index];
      if (message === undefined) continue;
      if (message.role === 'user')
        priceUserMessage(message, env.pricing, 'newest_turn', true, blocks);
      else
        priceAssistantSteps(
          message.steps,
          message.id,
          true,
          env.pricing,
          'newest_turn',
          true,
          blocks,
        );
    }
    const turnSteps = env.input.turnSteps ?? [];
    priceAssistantSteps(turnSteps, undefined, true, env.pricing, 'newest_turn', true, blocks);
    return { blocks, dropped: [] };
  },
};
