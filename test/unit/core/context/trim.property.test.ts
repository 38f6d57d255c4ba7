import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { prepareEnv } from '../../../../src/core/context/assemble-context';
import { allocateBudget, resolveReservedOutput } from '../../../../src/core/context/budget';
import type { Block, PartEnv } from '../../../../src/core/context/parts/part';
import { CONTEXT_PARTS } from '../../../../src/core/context/parts/registry';
import {
  createMarkerLedger,
  describeForgottenFiles,
  describeSkipped,
  READ_FILE_TOOL_NAME,
  type PlacedMarkers,
} from '../../../../src/core/context/render/markers';
import { selectByStrategy } from '../../../../src/core/context/strategies/select-by-strategy';
import { trimToBudget } from '../../../../src/core/context/trim';
import type { DropReason } from '../../../../src/core/context/types';
import { DEFAULT_UPLOAD_SHARE, type HistoryStrategy } from '../../../../src/core/model';
import type { TokenCounter } from '../../../../src/core/ports';
import { createTokenCounter } from '../../../../src/core/tokens';
import { buildSessionInput, sessionArbitrary, type RandomSession } from './random-session';

/**
 * The trim works on priced blocks and keeps its markers up to date one dropped block at a time.
 * Here it is checked against the plain way of doing the same: every block rendered, and the
 * markers placed again from scratch over all blocks after every single drop.
 */

function placeMarkersFromScratch(
  blocks: readonly Block[],
  kept: readonly boolean[],
  env: PartEnv,
): PlacedMarkers[] {
  const placed: PlacedMarkers[] = [];
  const forgotten: Array<{ fileId: string; name: string }> = [];
  const price = (text: string): number => env.meter.priceMessage(env.meter.countText(text));
  let runStart = -1;
  let runCount = 0;
  // A chat message is skipped when none of its blocks (next to each other, one source) is kept.
  const conversation = blocks.flatMap((block, index) => (block.isConversation ? [index] : []));
  const isWholeMessageDropped = (index: number): boolean => {
    const at = conversation.indexOf(index);
    const next = blocks[conversation[at + 1] ?? -1];
    const source = blocks[index]?.sourceId;
    if (source !== undefined && next?.sourceId === source) return false;
    for (let back = at; back >= 0; back--) {
      const other = conversation[back] ?? -1;
      if (back < at && (source === undefined || blocks[other]?.sourceId !== source)) break;
      if (kept[other] === true) return false;
    }
    return true;
  };
  const closeRun = (): void => {
    if (runStart < 0) return;
    if (runCount === 0) {
      placed.push({ beforeIndex: runStart, messages: [] });
      runStart = -1;
      return;
    }
    const text = describeSkipped(runCount);
    placed.push({
      beforeIndex: runStart,
      messages: [
        { kind: 'skipped', tokens: price(text), message: { role: 'user', content: text } },
      ],
    });
    runStart = -1;
    runCount = 0;
  };
  blocks.forEach((block, index) => {
    if (!block.isConversation) return;
    if (kept[index] === true) return closeRun();
    if (runStart < 0) runStart = index;
    if (isWholeMessageDropped(index)) runCount++;
    forgotten.push(...block.files);
  });
  closeRun();
  if (placed[0] !== undefined && forgotten.length > 0) {
    const canRead = env.input.tools.some((tool) => tool.name === READ_FILE_TOOL_NAME);
    const text = describeForgottenFiles(forgotten, canRead);
    placed[0].messages.push({
      kind: 'forgotten_files',
      tokens: price(text),
      message: { role: 'user', content: text },
    });
  }
  return placed.filter((entry) => entry.messages.length > 0);
}

function sumPlaced(placed: readonly PlacedMarkers[]): number {
  return placed.flatMap((entry) => entry.messages).reduce((sum, item) => sum + item.tokens, 0);
}

/** Rule 8 the slow way; returns what was kept, why the rest went, the markers, or "no fit". */
function trimFromScratch(
  blocks: readonly Block[],
  strategy: HistoryStrategy,
  available: number,
  env: PartEnv,
) {
  const kept = selectByStrategy(blocks, strategy);
  const reasons: Array<DropReason | undefined> = kept.map((isKept) =>
    isKept ? undefined : 'strategy',
  );
  const tokensOf = (block: Block): number =>
    block.render().reduce((sum, item) => sum + item.tokens, 0);
  let running = 0;
  for (const block of blocks) if (block.isRequired) running += tokensOf(block);
  if (running > available) return null;
  if (strategy.kind === 'unbounded') {
    for (const block of blocks) if (!block.isRequired) running += tokensOf(block);
    return running > available ? null : { kept, reasons, markers: [], totalTokens: running };
  }
  // The upload share, the slow way: messages within what the earlier files' room leaves,
  // then files (only with their question) in what is left, then unused room back to messages.
  const share = env.input.agent.uploadShare ?? DEFAULT_UPLOAD_SHARE;
  const isOld = (block: Block, index: number): boolean => !block.isRequired && kept[index] === true;
  const requiredUploads = blocks
    .filter((block) => block.isRequired && block.isUpload)
    .reduce((sum, block) => sum + tokensOf(block), 0);
  const uploadDemand = blocks
    .filter((block, index) => isOld(block, index) && block.isUpload)
    .reduce((sum, block) => sum + tokensOf(block), 0);
  const room = available - running;
  const uploadRoom = Math.max(
    0,
    Math.min(Math.floor(available * share) - requiredUploads, uploadDemand, room),
  );
  const messages = blocks.flatMap((block, index) =>
    isOld(block, index) && !block.isUpload ? [index] : [],
  );
  const files = blocks.flatMap((block, index) =>
    isOld(block, index) && block.isUpload ? [index] : [],
  );
  const brought = new Set<number>();
  const price = (text: string): number => env.meter.priceMessage(env.meter.countText(text));
  const candidates = (): number[] => messages.filter((index) => !brought.has(index));
  /** How many of the newest messages fit `limit` one after the other. */
  const fitNewest = (limit: number): number => {
    let used = 0;
    let count = 0;
    for (const index of candidates().reverse()) {
      const tokens = tokensOf(blocks[index] as Block);
      if (used + tokens > limit) break;
      used += tokens;
      count++;
    }
    return count;
  };
  const keepMessages = (count: number): number => {
    let used = 0;
    candidates()
      .reverse()
      .forEach((index, rank) => {
        const isKept = rank < count;
        kept[index] = isKept;
        reasons[index] = isKept ? undefined : 'budget';
        if (isKept) used += tokensOf(blocks[index] as Block);
      });
    return used;
  };
  let historyUsed = keepMessages(fitNewest(room - uploadRoom));
  const cutCount = candidates().filter((index) => kept[index] !== true).length;
  let uploadUsed = 0;
  let isFileCut = false;
  for (const index of [...files].reverse()) {
    const tokens = tokensOf(blocks[index] as Block);
    const question = blocks[index + 1];
    const isQuestion = question?.sourceId === blocks[index]?.sourceId;
    const canBring = isQuestion && kept[index + 1] !== true && reasons[index + 1] === 'budget';
    const cost = tokens + (canBring && question ? tokensOf(question) : 0);
    const gap = canBring ? price(describeSkipped(9999)) : 0;
    if (
      !isFileCut &&
      isQuestion &&
      (kept[index + 1] === true || canBring) &&
      historyUsed + uploadUsed + cost + gap <= room
    ) {
      uploadUsed += cost;
      if (canBring) {
        kept[index + 1] = true;
        reasons[index + 1] = undefined;
        brought.add(index + 1);
      }
    } else {
      isFileCut = true;
      kept[index] = false;
      reasons[index] = 'budget';
    }
  }
  if (cutCount > 0 && uploadUsed < uploadRoom) historyUsed = keepMessages(fitNewest(room - uploadUsed));
  running += historyUsed + uploadUsed;
  for (;;) {
    const markers = placeMarkersFromScratch(blocks, kept, env);
    if (running + sumPlaced(markers) <= available)
      return { kept, reasons, markers, totalTokens: running + sumPlaced(markers) };
    const oldest = blocks.findIndex((block, index) => kept[index] === true && !block.isRequired);
    const block = blocks[oldest];
    if (block === undefined) return null;
    kept[oldest] = false;
    reasons[oldest] = 'budget';
    running -= tokensOf(block);
    const question = blocks[oldest + 1];
    if (brought.has(oldest + 1) && question !== undefined && kept[oldest + 1] === true) {
      kept[oldest + 1] = false;
      reasons[oldest + 1] = 'budget';
      running -= tokensOf(question);
    }
  }
}

function collect(session: RandomSession, counter: TokenCounter) {
  const input = buildSessionInput(session, counter);
  const prepared = prepareEnv(input);
  if (!prepared.ok) throw new Error(prepared.error.message);
  const env = prepared.value;
  const blocks = CONTEXT_PARTS.flatMap((part) => part.collect(env).blocks);
  const budget = allocateBudget(
    input.model,
    resolveReservedOutput(input.model, input.reservedOutputTokens),
    0,
  );
  return { env, blocks, strategy: session.strategy, available: budget.inputBudget };
}

describe('trimming priced blocks', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await createTokenCounter(['o200k_base']);
  });

  it('renders every block with exactly the kinds and tokens it was priced at', () => {
    fc.assert(
      fc.property(sessionArbitrary, (session) => {
        for (const block of collect(session, counter).blocks) {
          const rendered = block.render();
          const kindsAndTokens = (items: ReadonlyArray<{ kind: string; tokens: number }>) =>
            items.map(({ kind, tokens }) => ({ kind, tokens }));
          expect(kindsAndTokens(rendered)).toEqual(kindsAndTokens(block.price()));
          expect(rendered).toHaveLength(block.messageCount);
          expect(rendered.reduce((sum, item) => sum + item.tokens, 0)).toBe(block.tokens);
        }
      }),
      { numRuns: 200, seed: 1121 },
    );
  });

  it('keeps, drops and marks exactly as re-placing every marker after each drop would', () => {
    fc.assert(
      fc.property(sessionArbitrary, (session) => {
        const { env, blocks, strategy, available } = collect(session, counter);
        const actual = trimToBudget(blocks, strategy, available, env);
        const expected = trimFromScratch(blocks, strategy, available, env);
        expect(actual.ok ? actual.value : null).toEqual(expected);
      }),
      { numRuns: 800, seed: 2611 },
    );
  });

  it('keeps the markers right whatever order blocks are dropped in', () => {
    fc.assert(
      fc.property(sessionArbitrary, fc.infiniteStream(fc.nat()), (session, picks) => {
        const { env, blocks } = collect(session, counter);
        const kept = selectByStrategy(blocks, session.strategy);
        const ledger = createMarkerLedger(blocks, kept, env);
        const droppable = (): number[] =>
          blocks.flatMap((block, index) => (kept[index] && !block.isRequired ? [index] : []));
        for (let candidates = droppable(); candidates.length > 0; candidates = droppable()) {
          const index = candidates[picks.next().value % candidates.length] ?? 0;
          kept[index] = false;
          ledger.drop(index);
          const expected = placeMarkersFromScratch(blocks, kept, env);
          expect(ledger.place()).toEqual(expected);
          expect(ledger.tokens()).toBe(sumPlaced(expected));
        }
      }),
      { numRuns: 150, seed: 909 },
    );
  });
});
