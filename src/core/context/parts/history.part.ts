import type { ChatMessageSimple } from '../../model';
import { priceAssistantSteps } from '../render/render-assistant';
import { priceUserMessage } from '../render/render-user';
import { findActiveSummary, SummaryBlock } from '../summary-block';
import type { BlockPricing } from './block-pricing';
import { assertNever } from '../../../util/exhaustive';
import type { ContextMessage, DroppedItem } from '../types';
import type {
  Block,
  CarriedFile,
  ContextPart,
  ElidedHistory,
  PartEnv,
  PricedMessage,
} from './part';

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
 * How far back the history is listed block by block. Walking from the newest message back, a
 * block cannot be sent once the history newer than it passes the input budget on its own side
 * of the upload share (messages and files are cut separately, each newest first), nor once the
 * strategy's own cut lies behind it. Strategies that keep old messages (`head_and_tail`) or
 * count them in ways the walk does not follow see every block, as does `unbounded`.
 */
interface HistoryWindow {
  /** Counts a message listed in full; false once everything older can only be dropped. */
  add(message: ChatMessageSimple, blocks: readonly Block[]): boolean;
}

function openHistoryWindow(env: PartEnv): HistoryWindow {
  const reach = env.historyReach;
  const strategy = env.input.historyStrategy ?? env.input.agent.historyStrategy;
  const stays = { add: () => true };
  if (!Number.isFinite(reach)) return stays;
  switch (strategy.kind) {
    case 'last_turns': {
      // Every user message starts a turn; past the newest `turns - 1` the strategy drops all.
      let turnsSeen = 0;
      return {
        add: (message) => {
          if (message.role === 'user') turnsSeen++;
          return turnsSeen < strategy.turns;
        },
      };
    }
    case 'auto':
    case 'clear_tool_results': {
      // Clearing can only make a step with tool calls cheaper: count it as free.
      const isClearable =
        strategy.kind === 'clear_tool_results' && strategy.shouldClearArguments;
      let messageTokens = 0;
      let uploadTokens = 0;
      return {
        add: (_message, blocks) => {
          for (const block of blocks) {
            if (block.isRequired) continue;
            if (block.isUpload) uploadTokens += block.tokens;
            else if (!isClearable || block.stepCalls === undefined) messageTokens += block.tokens;
          }
          return messageTokens <= reach || uploadTokens <= reach;
        },
      };
    }
    case 'unbounded':
    case 'buffered':
    case 'token_limited':
    case 'head_and_tail':
      return stays;
    default:
      return assertNever(strategy, 'history strategy');
  }
}

/** Messages beyond the window, between two pinned ones (or the start), as one elided block. */
class ElidedBlock implements Block {
  readonly messageCount: number;
  readonly part = 'history';
  readonly isRequired = false;
  readonly isConversation = true;
  readonly isUser = false;
  readonly isUpload = false;
  readonly sourceId = undefined;
  readonly elided: ElidedHistory;

  constructor(
    readonly tokens: number,
    readonly files: readonly CarriedFile[],
    sentMessages: number,
    wireMessages: number,
    listBlocks: () => readonly Block[],
  ) {
    this.messageCount = wireMessages;
    this.elided = { messageCount: sentMessages, blocks: listBlocks };
  }

  price(): PricedMessage[] {
    return this.elided.blocks().flatMap((block) => block.price());
  }

  /** Never sent: the trim drops it before anything is rendered. */
  render(): ContextMessage[] {
    throw new Error('An elided stretch of history is never sent.');
  }
}

/** Sums of an elided stretch, gathered newest first. */
class ElidedStretch {
  tokens = 0;
  sentMessages = 0;
  wireMessages = 0;
  /** Files newest first. */
  readonly files: CarriedFile[] = [];
  /** Oldest and newest conversation index it covers. */
  from = -1;
  readonly to: number;
  summary: SummaryBlock | null = null;

  constructor(index: number) {
    this.to = index;
  }

  add(index: number, blocks: readonly Block[]): void {
    this.from = index;
    if (blocks.length > 0) this.sentMessages++;
    for (let at = blocks.length - 1; at >= 0; at--) this.addBlock(blocks[at]);
  }

  addBlock(block: Block | undefined): void {
    if (block === undefined) return;
    this.tokens += block.tokens;
    this.wireMessages += block.messageCount;
    for (let at = block.files.length - 1; at >= 0; at--) {
      const file = block.files[at];
      if (file !== undefined) this.files.push(file);
    }
  }

  addSummary(summary: SummaryBlock): void {
    this.summary = summary;
    this.sentMessages++;
    this.addBlock(summary);
  }

  close(env: PartEnv, coveredUntil: number): ElidedBlock {
    const { from, to, summary } = this;
    return new ElidedBlock(this.tokens, this.files.reverse(), this.sentMessages, this.wireMessages, () => {
      const blocks: Block[] = summary === null ? [] : [summary];
      for (let index = Math.max(from, 0); index <= to; index++) {
        const message = env.conversation[index];
        if (message === undefined || message.isPinned || index <= coveredUntil) continue;
        for (const block of priceOlderMessage(env, message, false)) blocks.push(block);
      }
      return blocks;
    });
  }
}

/**
 * Earlier turns, oldest first: files stay just above the message they came with, tool results
 * are replaced by a placeholder, pinned messages are required. Excluded messages are reported,
 * never sent. A stored summary stands first in place of the messages it covers (reported as
 * summarised; a pinned one still goes). Blocks are priced here and rendered only if the trim
 * keeps them.
 *
 * The history is walked from the newest message back. Once the window (`openHistoryWindow`)
 * says nothing older can be sent, older messages are only summed up: each stretch between
 * pinned messages becomes one elided block (its tokens, chat messages and files), so the trim,
 * its markers and the render work on what can be sent, not on every message of a long chat.
 */
export const historyPart: ContextPart = {
  id: 'history',
  collect(env) {
    const dropped: DroppedItem[] = [];
    const active = findActiveSummary(env.conversation, env.input.summaries, env.anchorIndex);
    const coveredUntil = active?.lastIndex ?? -1;
    for (let index = 0; index <= coveredUntil; index++) {
      const message = env.conversation[index];
      if (message === undefined || message.isPinned) continue;
      for (const block of priceOlderMessage(env, message, false)) {
        for (const item of block.price()) {
          dropped.push({ kind: item.kind, reason: 'summarised', tokens: item.tokens, sourceId: message.id });
        }
      }
    }
    const window = openHistoryWindow(env);
    let isOpen = true;
    let stretch: ElidedStretch | null = null;
    /** Blocks newest first; turned round at the end. */
    const reversed: Block[] = [];
    const pushReversed = (blocks: readonly Block[]): void => {
      for (let at = blocks.length - 1; at >= 0; at--) {
        const block = blocks[at];
        if (block !== undefined) reversed.push(block);
      }
    };
    const closeStretch = (): void => {
      if (stretch !== null) reversed.push(stretch.close(env, coveredUntil));
      stretch = null;
    };
    for (let index = env.anchorIndex - 1; index >= 0; index--) {
      const message = env.conversation[index];
      if (message === undefined) continue;
      if (index <= coveredUntil && !message.isPinned) continue;
      const blocks = priceOlderMessage(env, message, message.isPinned);
      if (isOpen) {
        pushReversed(blocks);
        isOpen = window.add(message, blocks);
      } else if (message.isPinned) {
        closeStretch();
        pushReversed(blocks);
      } else {
        stretch ??= new ElidedStretch(index);
        stretch.add(index, blocks);
      }
    }
    if (active !== null) {
      const summary = new SummaryBlock(active.summary, env.meter);
      if (isOpen) reversed.push(summary);
      else (stretch ??= new ElidedStretch(-1)).addSummary(summary);
    }
    closeStretch();
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
    return { blocks: reversed.reverse(), dropped };
  },
};
