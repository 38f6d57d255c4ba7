import type { ChatMessageSimple } from '../../model';
import { priceAssistantSteps } from '../render/render-assistant';
import { priceUserMessage } from '../render/render-user';
import type { DroppedItem } from '../types';
import type { Block, ContextPart, PartEnv } from './part';

function priceOlderMessage(
  env: PartEnv,
  message: ChatMessageSimple,
  isPinned: boolean,
  blocks: Block[],
): void {
  const part = isPinned ? 'pinned' : 'history';
  if (message.role === 'user') priceUserMessage(message, env, part, isPinned, blocks);
  else priceAssistantSteps(message.steps, message.id, false, env, part, isPinned, blocks);
}

/**
 * Earlier turns, oldest first: files stay just above the message they came with, tool results
 * are replaced by a placeholder, pinned messages are required. Excluded messages are reported,
 * never sent. Blocks are priced here and rendered only if the trim keeps them.
 */
export const historyPart: ContextPart = {
  id: 'history',
  collect(env) {
    const blocks: Block[] = [];
    for (let index = 0; index < env.anchorIndex; index++) {
      const message = env.conversation[index];
      if (message !== undefined) priceOlderMessage(env, message, message.isPinned, blocks);
    }
    const dropped: DroppedItem[] = [];
    for (const message of env.excluded) {
      const excluded: Block[] = [];
      priceOlderMessage(env, message, false, excluded);
      for (const block of excluded) {
        for (const item of block.price()) {
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
