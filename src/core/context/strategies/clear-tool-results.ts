import type { HistoryStrategy } from '../../model';
import type { Block, CallOverride, TokenMeter } from '../parts/part';
import type { Reduction } from '../types';

/** What the model reads instead of a cleared result. */
export const CLEARED_TOOL_RESULT =
  'This tool result was cleared to save room in the context. Call the tool again if you need it.';

export type ClearToolResultsStrategy = Extract<HistoryStrategy, { kind: 'clear_tool_results' }>;

/** Tokens of the context as collected, before any strategy or budget leaves something out. */
function sumTokens(blocks: readonly Block[]): number {
  let total = 0;
  for (const block of blocks) total += block.tokens;
  return total;
}

/**
 * Earlier turns' steps are the same objects from request to request (see `history.part.ts`),
 * and past the newest `keep` calls they are cleared the same way every time: the cleared
 * block is made once per step and what it clears, and reused while that stays the same.
 */
const clearedByBlock = new WeakMap<
  Block,
  { key: string; block: Block; reductions: readonly Reduction[] }
>();

/**
 * Clears old tool results once the context would pass the strategy's threshold, as the
 * providers' own context editing does: every call but the newest `keep` (calls of excluded
 * tools are neither cleared nor counted) reads a short notice instead of its result, and with
 * `shouldClearArguments` its arguments are sent as `{}`. Earlier turns' results are already a
 * placeholder, so there only the arguments can go. Replaces the blocks it changes in `blocks`
 * and returns what it cleared per block index.
 */
export function clearOldToolResults(
  blocks: Block[],
  strategy: ClearToolResultsStrategy,
  meter: TokenMeter,
): Array<{ blockIndex: number; reduction: Reduction }> {
  if (sumTokens(blocks) <= strategy.triggerTokens) return [];
  const excluded = new Set(strategy.excludeTools);
  const clearedTokens = meter.countText(CLEARED_TOOL_RESULT);
  const argumentsTokens = meter.countText('{}');
  const cleared: Array<{ blockIndex: number; reduction: Reduction }> = [];
  let toKeep = strategy.keep;
  // What a cleared block depends on besides the block and which of its calls are cleared.
  const settingsKey = `${clearedTokens}:${argumentsTokens}:${strategy.shouldClearArguments}:${strategy.excludeTools.join('\u0000')}`;
  /** The block with every call past the newest `keep` cleared; counts the calls it keeps. */
  const clearBlock = (block: Block, record: (reduction: Reduction) => void): Block => {
    const step = block.stepCalls;
    if (step === undefined) return block;
    // Past the newest `keep` calls every call the settings allow is cleared: the settings say
    // it all, and a block cleared that way before is reused without going through its calls.
    // Otherwise the calls cleared are named. Only a block sent as stored is remembered:
    // overrides made elsewhere are not in the key.
    const isAllCleared = toKeep === 0;
    const isPlain = step.overrides.size === 0;
    const memo = isPlain ? clearedByBlock.get(block) : undefined;
    if (isAllCleared && memo !== undefined && memo.key === settingsKey) {
      for (const reduction of memo.reductions) record({ ...reduction });
      return memo.block;
    }
    const changes: Array<[string, CallOverride]> = [];
    const reductions: Reduction[] = [];
    let key = settingsKey;
    for (let at = step.calls.length - 1; at >= 0; at--) {
      const call = step.calls[at];
      if (call === undefined || excluded.has(call.name)) continue;
      if (toKeep > 0) {
        toKeep--;
        continue;
      }
      const isResultSent =
        step.isCurrentTurn && call.status !== 'cancelled' && call.result !== undefined;
      if (!isResultSent && !strategy.shouldClearArguments) continue;
      const override: CallOverride = { label: `${call.name}: cleared` };
      let tokensBefore = 0;
      let tokensAfter = 0;
      if (isResultSent) {
        override.output = CLEARED_TOOL_RESULT;
        override.outputTokens = clearedTokens;
        tokensBefore += call.result?.tokenCount ?? 0;
        tokensAfter += clearedTokens;
      }
      if (strategy.shouldClearArguments) {
        override.isArgumentsCleared = true;
        tokensBefore += call.argumentsTokenCount;
        tokensAfter += argumentsTokens;
      }
      changes.push([call.id, override]);
      if (!isAllCleared) key += `\u0001${call.id}`;
      reductions.push({
        kind: 'cleared',
        reason: 'clear_threshold',
        toolCallId: call.id,
        toolName: call.name,
        tokensBefore,
        tokensAfter,
      });
    }
    for (const reduction of reductions) record({ ...reduction });
    if (changes.length === 0) return block;
    if (memo !== undefined && memo.key === key) return memo.block;
    const adjusted = step.adjust(new Map([...step.overrides, ...changes]));
    if (isPlain) clearedByBlock.set(block, { key, block: adjusted, reductions });
    return adjusted;
  };
  /** Blocks oldest first, cleared newest first (as the loop below goes). */
  const clearAll = (inner: readonly Block[]): Block[] => {
    const result = [...inner];
    for (let at = result.length - 1; at >= 0; at--) {
      const block = result[at];
      if (block !== undefined) result[at] = clearBlock(block, () => {});
    }
    return result;
  };
  for (let blockIndex = blocks.length - 1; blockIndex >= 0; blockIndex--) {
    const block = blocks[blockIndex];
    if (block === undefined) continue;
    const { elided } = block;
    if (elided !== undefined) {
      // Never sent, but reported as it would have been sent. Only while calls are still to
      // keep does the count have to go through it now (older pinned messages follow).
      if (toKeep > 0) {
        const inner = clearAll(elided.blocks());
        blocks[blockIndex] = elided.revise(() => inner);
      } else {
        blocks[blockIndex] = elided.revise(() => clearAll(elided.blocks()));
      }
      continue;
    }
    blocks[blockIndex] = clearBlock(block, (reduction) => cleared.push({ blockIndex, reduction }));
  }
  return cleared.reverse();
}
