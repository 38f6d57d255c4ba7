import type { HistoryStrategy } from '../../model';
import { assertNever } from '../../../util/exhaustive';
import type { Block } from '../parts/part';

/**
 * Keeps the newest conversation blocks while `fits` accepts the running total; at the first
 * block it rejects, that block and every older one go (required blocks always stay).
 */
function keepNewestWhile(
  blocks: readonly Block[],
  kept: boolean[],
  measure: (block: Block) => number,
  limit: number,
): void {
  let running = 0;
  for (const block of blocks)
    if (block.isConversation && block.isRequired) running += measure(block);
  let isCut = false;
  for (let index = blocks.length - 1; index >= 0; index--) {
    const block = blocks[index];
    if (block === undefined || !block.isConversation || block.isRequired) continue;
    if (!isCut && running + measure(block) <= limit) {
      running += measure(block);
    } else {
      isCut = true;
      kept[index] = false;
    }
  }
}

/**
 * Keeps the newest `earlierTurns` questions of the history with their files and answers; the
 * turn being answered is required and not counted. A pinned message still marks where a turn
 * starts, so turns are counted as the person sees them.
 */
function keepLastTurns(blocks: readonly Block[], kept: boolean[], earlierTurns: number): void {
  let turnsSeen = 0;
  let lastUser: Block['sourceId'] = undefined;
  for (let index = blocks.length - 1; index >= 0; index--) {
    const block = blocks[index];
    if (block === undefined || !block.isConversation || block.part === 'newest_turn') continue;
    let isInside: boolean;
    if (block.isUser) {
      // A question's files and text are two blocks of one message: one turn.
      if (block.sourceId === undefined || block.sourceId !== lastUser) turnsSeen++;
      lastUser = block.sourceId;
      isInside = turnsSeen <= earlierTurns;
    } else {
      isInside = turnsSeen < earlierTurns;
    }
    if (!isInside && !block.isRequired) kept[index] = false;
  }
}

const countMessages = (block: Block): number => block.messageCount;
const countTokens = (block: Block): number => block.tokens;

/**
 * The history strategies over the conversation blocks (S, CA, P and R are not history). They
 * count rendered messages, but drop whole blocks, so no strategy ever starts the history on a
 * tool result or separates a call from its result. Returns a kept flag per block.
 */
export function selectByStrategy(blocks: readonly Block[], strategy: HistoryStrategy): boolean[] {
  const kept = blocks.map(() => true);
  switch (strategy.kind) {
    case 'auto':
    case 'unbounded':
    case 'clear_tool_results':
      return kept;
    case 'last_turns':
      keepLastTurns(blocks, kept, strategy.turns - 1);
      return kept;
    case 'buffered':
      keepNewestWhile(blocks, kept, countMessages, strategy.size);
      return kept;
    case 'token_limited':
      keepNewestWhile(blocks, kept, countTokens, strategy.maxTokens);
      return kept;
    case 'head_and_tail': {
      const tail = blocks.map(() => true);
      keepNewestWhile(blocks, tail, countMessages, strategy.tail);
      const head = blocks.map(() => false);
      let headCount = 0;
      for (let index = 0; index < blocks.length; index++) {
        const block = blocks[index];
        if (block === undefined || !block.isConversation) continue;
        if (headCount + block.messageCount > strategy.head) break;
        headCount += block.messageCount;
        head[index] = true;
      }
      return blocks.map(
        (block, index) =>
          !block.isConversation || block.isRequired || head[index] === true || tail[index] === true,
      );
    }
    default:
      return assertNever(strategy, 'history strategy');
  }
}
