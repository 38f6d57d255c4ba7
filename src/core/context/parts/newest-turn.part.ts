import { renderAssistantSteps } from '../render/render-assistant';
import { renderUserMessage } from '../render/render-user';
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
        blocks.push(...renderUserMessage(message, env, 'newest_turn', true));
      else
        blocks.push(
          ...renderAssistantSteps(message.steps, message.id, true, env, 'newest_turn', true),
        );
    }
    const turnSteps = env.input.turnSteps ?? [];
    blocks.push(...renderAssistantSteps(turnSteps, undefined, true, env, 'newest_turn', true));
    return { blocks, dropped: [] };
  },
};
