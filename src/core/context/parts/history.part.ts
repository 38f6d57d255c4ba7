import { renderAssistantSteps } from '../render/render-assistant';
import { renderUserMessage } from '../render/render-user';
import type { DroppedItem } from '../types';
import type { Block, ContextPart, PartEnv } from './part';

function renderOlderMessage(env: PartEnv, index: number): Block[] {
  const message = env.conversation[index];
  if (message === undefined) return [];
  const part = message.isPinned ? 'pinned' : 'history';
  if (message.role === 'user') return renderUserMessage(message, env, part, message.isPinned);
  return renderAssistantSteps(message.steps, message.id, false, env, part, message.isPinned);
}

/**
 * Earlier turns, oldest first: files stay just above the message they came with, tool results
 * are replaced by a placeholder, pinned messages are required. Excluded messages are reported,
 * never sent.
 */
export const historyPart: ContextPart = {
  id: 'history',
  collect(env) {
    const blocks: Block[] = [];
    for (let index = 0; index < env.anchorIndex; index++)
      blocks.push(...renderOlderMessage(env, index));
    const dropped: DroppedItem[] = [];
    for (const message of env.excluded) {
      const rendered =
        message.role === 'user'
          ? renderUserMessage(message, env, 'history', false)
          : renderAssistantSteps(message.steps, message.id, false, env, 'history', false);
      for (const block of rendered) {
        for (const item of block.messages) {
          dropped.push({
            kind: item.kind,
            reason: 'excluded',
            tokens: item.tokens,
            sourceId: message.id,
          });
        }
      }
    }
    return { blocks, dropped };
  },
};
