import type { HistoryStrategy } from '../model';
import type { Result } from '../../util/result';
import { err, ok } from '../../util/result';
import type { Block, PartEnv } from './parts/part';
import { createMarkerLedger, type PlacedMarkers } from './render/markers';
import { selectByStrategy } from './strategies/select-by-strategy';
import type { DropReason, RequiredPart, RequiredPartName } from './types';

export interface Trimmed {
  kept: boolean[];
  reasons: Array<DropReason | undefined>;
  markers: PlacedMarkers[];
  totalTokens: number;
}

export interface DoesNotFit {
  required: number;
  available: number;
  parts: RequiredPart[];
}

const PART_ORDER: readonly RequiredPartName[] = [
  'system',
  'custom_agent',
  'project_files',
  'pinned',
  'history',
  'newest_turn',
  'markers',
  'reminder',
];

function sumByPart(
  blocks: readonly Block[],
  isCounted: (block: Block, index: number) => boolean,
  markerTokens: number,
): RequiredPart[] {
  const totals = new Map<RequiredPartName, number>();
  blocks.forEach((block, index) => {
    if (isCounted(block, index))
      totals.set(block.part, (totals.get(block.part) ?? 0) + block.tokens);
  });
  if (markerTokens > 0) totals.set('markers', markerTokens);
  return PART_ORDER.filter((part) => (totals.get(part) ?? 0) > 0).map((part) => ({
    part,
    tokens: totals.get(part) ?? 0,
  }));
}

function doesNotFit(parts: RequiredPart[], available: number): DoesNotFit {
  let required = 0;
  for (const part of parts) required += part.tokens;
  return { required, available, parts };
}

/**
 * The strategy first, then the budget (rule 8) on top: required blocks always stay; the rest
 * is kept newest first while it fits, and at the first block that does not, it and everything
 * older go. Markers for the cut are priced too; while they do not fit, one more old block goes.
 * Works on priced blocks only: nothing is rendered or tokenized here but the markers.
 */
export function trimToBudget(
  blocks: readonly Block[],
  strategy: HistoryStrategy,
  available: number,
  env: PartEnv,
): Result<Trimmed, DoesNotFit> {
  const kept = selectByStrategy(blocks, strategy);
  const reasons: Array<DropReason | undefined> = kept.map((isKept) =>
    isKept ? undefined : 'strategy',
  );

  let running = 0;
  for (const block of blocks) if (block.isRequired) running += block.tokens;
  if (running > available) {
    return err(
      doesNotFit(
        sumByPart(blocks, (block) => block.isRequired, 0),
        available,
      ),
    );
  }

  if (strategy.kind === 'unbounded') {
    for (const block of blocks) if (!block.isRequired) running += block.tokens;
    if (running > available)
      return err(
        doesNotFit(
          sumByPart(blocks, () => true, 0),
          available,
        ),
      );
    return ok({ kept, reasons, markers: [], totalTokens: running });
  }

  let isCut = false;
  for (let index = blocks.length - 1; index >= 0; index--) {
    const block = blocks[index];
    if (block === undefined || block.isRequired || kept[index] !== true) continue;
    if (!isCut && running + block.tokens <= available) {
      running += block.tokens;
    } else {
      isCut = true;
      kept[index] = false;
      reasons[index] = 'budget';
    }
  }

  // The ledger updates the markers per dropped block, so each round is a few map operations;
  // the search for the oldest kept block resumes where it stopped.
  const ledger = createMarkerLedger(blocks, kept, env);
  let oldest = 0;
  for (;;) {
    const markerTokens = ledger.tokens();
    if (running + markerTokens <= available)
      return ok({ kept, reasons, markers: ledger.place(), totalTokens: running + markerTokens });
    while (
      oldest < blocks.length &&
      (kept[oldest] !== true || blocks[oldest]?.isRequired !== false)
    )
      oldest++;
    const oldestBlock = blocks[oldest];
    if (oldestBlock === undefined) {
      return err(
        doesNotFit(
          sumByPart(blocks, (_block, index) => kept[index] === true, markerTokens),
          available,
        ),
      );
    }
    kept[oldest] = false;
    reasons[oldest] = 'budget';
    running -= oldestBlock.tokens;
    ledger.drop(oldest);
  }
}
