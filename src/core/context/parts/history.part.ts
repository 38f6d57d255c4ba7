import type { ChatMessageSimple } from '../../model';
import { priceAssistantSteps } from '../render/render-assistant';
import { priceUserMessage } from '../render/render-user';
import { findActiveSummary, SummaryBlock } from '../summary-block';
import type { BlockPricing } from './block-pricing';
import { assertNever } from '../../../util/exhaustive';
import { resolveUploadShare, splitInputBudget } from '../budget';
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

/**
 * `shouldKeep` false prices without remembering: the running sums read a message's blocks once
 * and keep only their totals, so the blocks of the thousands of messages older than anything sent
 * die young instead of being held (and moved by every garbage collection) until the message goes.
 */
function priceOlderMessage(
  env: PartEnv,
  message: ChatMessageSimple,
  isPinned: boolean,
  shouldKeep = true,
): readonly Block[] {
  const { pricing } = env;
  const memo = pricedByMessage.get(message);
  if (memo !== undefined && memo.pricing === pricing && memo.isPinned === isPinned)
    return memo.blocks;
  const part = isPinned ? 'pinned' : 'history';
  const blocks: Block[] = [];
  if (message.role === 'user') priceUserMessage(message, pricing, part, isPinned, blocks);
  else priceAssistantSteps(message.steps, message.id, false, pricing, part, isPinned, blocks);
  if (shouldKeep) pricedByMessage.set(message, { pricing, isPinned, blocks });
  return blocks;
}

/**
 * How far back the history is listed block by block. Walking from the newest message back, a
 * block cannot be sent once the history newer than it passes the input budget on its own side
 * of the upload share (messages and files are cut separately, each newest first), nor once the
 * strategy's own cut lies behind it. `unbounded` sees every block; `head_and_tail` also lists
 * its head (`findHeadEnd`).
 */
interface HistoryWindow {
  /** Counts a message listed in full; false once everything older can only be dropped. */
  add(message: ChatMessageSimple, blocks: readonly Block[]): boolean;
}

/**
 * The window of a strategy that keeps the newest blocks while their running measure stays
 * within `limit` (required blocks counted too): once the listed blocks alone pass it, the
 * strategy's cut lies among them and it drops everything older.
 */
function openKeptWhileWindow(measure: (block: Block) => number, limit: number): HistoryWindow {
  let listed = 0;
  return {
    add: (_message, blocks) => {
      for (const block of blocks) if (!block.isRequired) listed += measure(block);
      return listed <= limit;
    },
  };
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
    case 'buffered':
      return openKeptWhileWindow((block) => block.messageCount, strategy.size);
    case 'head_and_tail':
      return openKeptWhileWindow((block) => block.messageCount, strategy.tail);
    case 'token_limited':
      return openKeptWhileWindow((block) => block.tokens, strategy.maxTokens);
    case 'auto':
    case 'clear_tool_results': {
      // Clearing arguments changes a step's price (a call's arguments sent as `{}` can cost a
      // token more than short ones): a step counts at the least it can cost toward the
      // messages' cut, and at the most it can cost as the block the cut may fall on.
      const isClearing = strategy.kind === 'clear_tool_results' && strategy.shouldClearArguments;
      const excluded = new Set(strategy.kind === 'clear_tool_results' ? strategy.excludeTools : []);
      const isClearable = (call: { name: string }) => !excluded.has(call.name);
      // Files get what the messages leave: once the messages are cut (inside the window, as
      // they pass the whole budget), that is at most the upload share plus the block the cut
      // fell on, which is no larger than the largest message block listed.
      const { uploadBudget } = splitInputBudget(reach, resolveUploadShare(env.input.agent));
      let messageTokens = 0;
      let uploadTokens = 0;
      let largestMessage = 0;
      return {
        add: (_message, blocks) => {
          for (const block of blocks) {
            if (block.isRequired) continue;
            if (block.isUpload) {
              uploadTokens += block.tokens;
            } else if (isClearing && block.stepCalls !== undefined) {
              const { least, most } = block.stepCalls.priceRange(isClearable);
              largestMessage = Math.max(largestMessage, most);
              messageTokens += least;
            } else {
              largestMessage = Math.max(largestMessage, block.tokens);
              messageTokens += block.tokens;
            }
          }
          return messageTokens <= reach || uploadTokens <= uploadBudget + largestMessage;
        },
      };
    }
    case 'unbounded':
      return stays;
    default:
      return assertNever(strategy, 'history strategy');
  }
}

/**
 * Where the head of `head_and_tail` ends (an index into the conversation): the strategy keeps
 * the oldest conversation blocks, the summary first, while their messages stay within `head`,
 * so every message up to the one holding the first block past it is listed block by block and
 * only the stretch after it can be summed up. 0 for the other strategies, and when listing all.
 */
function findHeadEnd(env: PartEnv, summary: SummaryBlock | null, coveredUntil: number): number {
  const strategy = env.input.historyStrategy ?? env.input.agent.historyStrategy;
  if (strategy.kind !== 'head_and_tail' || !Number.isFinite(env.historyReach)) return 0;
  let count = summary?.messageCount ?? 0;
  if (count > strategy.head) return 0;
  for (let index = 0; index < env.anchorIndex; index++) {
    const message = env.conversation[index];
    if (message === undefined || (index <= coveredUntil && !message.isPinned)) continue;
    for (const block of priceOlderMessage(env, message, message.isPinned)) {
      count += block.messageCount;
      if (count > strategy.head) return index + 1;
    }
  }
  return env.anchorIndex;
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
    this.elided = {
      messageCount: sentMessages,
      blocks: listBlocks,
      revise: (blocks) => new ElidedBlock(tokens, files, sentMessages, wireMessages, blocks),
    };
  }

  price(): PricedMessage[] {
    return this.elided.blocks().flatMap((block) => block.price());
  }

  /** Never sent: the trim drops it before anything is rendered. */
  render(): ContextMessage[] {
    throw new Error('An elided stretch of history is never sent.');
  }
}

/**
 * Running sums over the older history as the last request priced it: entry `i` of each array
 * sums the messages before conversation index `i` that are not pinned (a pinned message is
 * sent whatever its age, so it is listed, never summed). The next cycle and the next turn hold
 * the same message objects in the same order, so the sums stay valid up to the first message
 * that differs (by identity or pin state) and only what follows it is priced again.
 */
interface HistorySums {
  messages: ChatMessageSimple[];
  pinned: boolean[];
  /** Conversation indexes of pinned messages, ascending. */
  pinnedAt: number[];
  tokens: number[];
  /** Chat messages that send something (the skipped marker's count). */
  sent: number[];
  /** Messages on the wire (what `Block.messageCount` counts). */
  wire: number[];
  /** Where each message's files start in `files`. */
  fileAt: number[];
  files: CarriedFile[];
}

const sumsByPricing = new WeakMap<BlockPricing, HistorySums>();

/** The sums for the conversation before `end`, reusing what the last request summed. */
function sumOlderHistory(env: PartEnv, end: number): HistorySums {
  let sums = sumsByPricing.get(env.pricing);
  if (sums === undefined) {
    sums = {
      messages: [],
      pinned: [],
      pinnedAt: [],
      tokens: [0],
      sent: [0],
      wire: [0],
      fileAt: [0],
      files: [],
    };
    sumsByPricing.set(env.pricing, sums);
  }
  const { conversation } = env;
  let same = 0;
  const known = Math.min(end, sums.messages.length);
  while (
    same < known &&
    conversation[same] === sums.messages[same] &&
    conversation[same]?.isPinned === sums.pinned[same]
  )
    same++;
  if (same < sums.messages.length) {
    sums.messages.length = same;
    sums.pinned.length = same;
    while ((sums.pinnedAt.at(-1) ?? -1) >= same) sums.pinnedAt.pop();
    sums.tokens.length = same + 1;
    sums.sent.length = same + 1;
    sums.wire.length = same + 1;
    sums.fileAt.length = same + 1;
    sums.files.length = sums.fileAt[same] ?? 0;
  }
  for (let index = same; index < end; index++) {
    const message = conversation[index];
    if (message === undefined) break;
    let tokens = 0;
    let sent = 0;
    let wire = 0;
    if (message.isPinned) {
      sums.pinnedAt.push(index);
    } else {
      const blocks = priceOlderMessage(env, message, false, false);
      if (blocks.length > 0) sent = 1;
      for (const block of blocks) {
        tokens += block.tokens;
        wire += block.messageCount;
        for (const file of block.files) sums.files.push(file);
      }
    }
    sums.messages.push(message);
    sums.pinned.push(message.isPinned);
    sums.tokens.push((sums.tokens[index] ?? 0) + tokens);
    sums.sent.push((sums.sent[index] ?? 0) + sent);
    sums.wire.push((sums.wire[index] ?? 0) + wire);
    sums.fileAt.push(sums.files.length);
  }
  return sums;
}

/**
 * The messages in `[from, to)` (none pinned) as one elided block, with the summary in front
 * when it is the oldest; null when that is nothing.
 */
function elideStretch(
  env: PartEnv,
  sums: HistorySums,
  from: number,
  to: number,
  summary: SummaryBlock | null,
): ElidedBlock | null {
  const start = Math.min(from, to);
  const at = (values: number[], index: number): number => values[index] ?? 0;
  let tokens = at(sums.tokens, to) - at(sums.tokens, start);
  let sent = at(sums.sent, to) - at(sums.sent, start);
  let wire = at(sums.wire, to) - at(sums.wire, start);
  if (summary !== null) {
    tokens += summary.tokens;
    sent++;
    wire += summary.messageCount;
  }
  if (sent === 0 && wire === 0) return null;
  const files = sums.files.slice(at(sums.fileAt, start), at(sums.fileAt, to));
  return new ElidedBlock(tokens, files, sent, wire, () => {
    const blocks: Block[] = summary === null ? [] : [summary];
    for (let index = start; index < to; index++) {
      const message = env.conversation[index];
      if (message === undefined || message.isPinned) continue;
      for (const block of priceOlderMessage(env, message, false)) blocks.push(block);
    }
    return blocks;
  });
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
          dropped.push({
            kind: item.kind,
            reason: 'summarised',
            tokens: item.tokens,
            sourceId: message.id,
          });
        }
      }
    }
    const window = openHistoryWindow(env);
    /** Blocks newest first; turned round at the end. */
    const reversed: Block[] = [];
    const pushReversed = (blocks: readonly Block[]): void => {
      for (let at = blocks.length - 1; at >= 0; at--) {
        const block = blocks[at];
        if (block !== undefined) reversed.push(block);
      }
    };
    const summary = active === null ? null : new SummaryBlock(active.summary, env.meter);
    const headEnd = findHeadEnd(env, summary, coveredUntil);
    // Newest first, block by block, while something could still be sent.
    let beyond = -1;
    for (let index = env.anchorIndex - 1; index >= 0; index--) {
      const message = env.conversation[index];
      if (message === undefined) continue;
      if (index <= coveredUntil && !message.isPinned) continue;
      const blocks = priceOlderMessage(env, message, message.isPinned);
      pushReversed(blocks);
      if (!window.add(message, blocks) && index >= headEnd) {
        beyond = index;
        break;
      }
    }
    if (beyond < 0) {
      if (summary !== null) reversed.push(summary);
    } else {
      // The rest, older than `beyond`: pinned messages listed, the stretches between summed.
      const sums = sumOlderHistory(env, beyond);
      const firstElided = Math.max(coveredUntil + 1, headEnd);
      let end = beyond;
      for (let at = sums.pinnedAt.length - 1; at >= 0; at--) {
        const pinned = sums.pinnedAt[at] ?? -1;
        const message = env.conversation[pinned];
        if (pinned >= beyond || message === undefined) continue;
        // The head lists its own pinned messages below.
        if (pinned < headEnd) break;
        const stretch = elideStretch(env, sums, Math.max(pinned + 1, firstElided), end, null);
        if (stretch !== null) reversed.push(stretch);
        pushReversed(priceOlderMessage(env, message, true));
        end = pinned;
      }
      const oldest = elideStretch(env, sums, firstElided, end, headEnd > 0 ? null : summary);
      if (oldest !== null) reversed.push(oldest);
      if (headEnd > 0) {
        // The head, block by block, as the strategy keeps it, after the summary.
        for (let index = headEnd - 1; index >= 0; index--) {
          const message = env.conversation[index];
          if (message === undefined || (index <= coveredUntil && !message.isPinned)) continue;
          pushReversed(priceOlderMessage(env, message, message.isPinned));
        }
        if (summary !== null) reversed.push(summary);
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
    return { blocks: reversed.reverse(), dropped };
  },
};
