import type { ChatMessageSimple } from '../../model';
import { priceAssistantSteps } from '../render/render-assistant';
import { priceUserMessage } from '../render/render-user';
import { findActiveSummary, SummaryBlock } from '../summary-block';
import type { DroppedItem } from '../types';
import type { BlockPricing } from './block-pricing';
import type { Block, ContextPart, PartEnv } from './part';

/** A message's blocks as priced for one pricing and pin state. */
interface PricedOlderMessage {
  pricing: BlockPricing;
  isPinned: boolean;
  blocks: readonly Block[];
}

/**
 * The agent assembles once per cycle from the same chain, and the next turn's chain holds the
 * same message objects (the worker's session cache): a message's blocks, which are immutable
 * and read nothing but the message and the shared pricing, are priced once and reused while
 * the pricing and the pin state are the same. Stored messages are never changed in place (an
 * edit or a pin is a new message object from storage), and a collected message goes with its
 * entry.
 */
const pricedByMessage = new WeakMap<ChatMessageSimple, PricedOlderMessage>();

function priceOlderMessage(
  env: PartEnv,
  message: ChatMessageSimple,
  isPinned: boolean,
): readonly Block[] {
  const { pricing } = env;
  const memo = pricedByMessage.get(message);
  if (memo !== undefined && memo.pricing === pricing && memo.isPinned === isPinned)
    return memo.blocks;
  const part = isPinned ? 'pinned' : 'history';
  const blocks: Block[] = [];
  if (message.role === 'user') priceUserMessage(message, pricing, part, isPinned, blocks);
  else priceAssistantSteps(message.steps, message.id, false, pricing, part, isPinned, blocks);
  pricedByMessage.set(message, { pricing, isPinned, blocks });
  return blocks;
}

/**
 * Earlier turns, oldest first: files stay just above the message they came with, tool results
 * are replaced by a placeholder, pinned messages are required. Excluded messages are reported,
 * never sent. A stored summary stands first in place of the messages it covers (reported as
 * summarised; a pinned one still goes). Blocks are priced here and rendered only if the trim
 * keeps them.
 */
export const historyPart: ContextPart = {
  id: 'history',
  collect(env) {
    const blocks: Block[] = [];
    const dropped: DroppedItem[] = [];
    const active = findActiveSummary(env.conversation, env.input.summaries, env.anchorIndex);
    const coveredUntil = active?.lastIndex ?? -1;
    if (active !== null) blocks.push(new SummaryBlock(active.summary, env.meter));
    for (let index = 0; index < env.anchorIndex; index++) {
      const message = env.conversation[index];
      if (message === undefined) continue;
      const isCovered = index <= coveredUntil && !message.isPinned;
      for (const block of priceOlderMessage(env, message, message.isPinned)) {
        if (!isCovered) {
          blocks.push(block);
          continue;
        }
        for (const item of block.price()) {
          dropped.push({ kind: item.kind, reason: 'summarised', tokens: item.tokens, sourceId: message.id });
        }
      }
    }
    for (const message of env.excluded) {
      for (const block of priceOlderMessage(env, message, false)) {
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
