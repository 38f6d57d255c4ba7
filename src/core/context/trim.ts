import type { HistoryStrategy } from '../model';
import type { Result } from '../../util/result';
import { err, ok } from '../../util/result';
import { resolveUploadShare, splitInputBudget } from './budget';
import type { Block, PartEnv } from './parts/part';
import { createMarkerLedger, describeSkipped, type PlacedMarkers } from './render/markers';
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

/** A skipped marker's count as large as a chat's, to price the room a new gap needs. */
const GAP_MARKER_COUNT = 9999;

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
 * The budget over the blocks the strategy kept, with a share reserved for uploads: earlier
 * turns' files get up to `uploadShare` of the budget (less what inline project files and this
 * turn's files already take), the rest of the history the remainder. Messages are kept newest
 * first until the first that does not fit their room, which goes with everything older; files
 * then take their room newest first until the first that does not fit, each with its question
 * (brought back if the messages' cut took it, so a file is never sent alone); room the files
 * leave unused goes back to older messages. With no earlier files this is the plain rule:
 * newest first while it fits. Returns the tokens kept; `broughtQuestions` gets the questions
 * kept only for their files (each leaves room for the skipped marker its gap needs).
 */
function keepNewestWithinShares(
  blocks: readonly Block[],
  kept: boolean[],
  reasons: Array<DropReason | undefined>,
  room: number,
  uploadShare: number,
  broughtQuestions: Set<number>,
  gapMarkerTokens: number,
): number {
  let requiredUploads = 0;
  let uploadDemand = 0;
  let requiredTokens = 0;
  blocks.forEach((block, index) => {
    if (block.isRequired) requiredTokens += block.tokens;
    if (!block.isUpload) return;
    if (block.isRequired) requiredUploads += block.tokens;
    else if (kept[index] === true) uploadDemand += block.tokens;
  });
  const { uploadBudget } = splitInputBudget(room + requiredTokens, uploadShare);
  const uploadRoom = Math.max(0, Math.min(uploadBudget - requiredUploads, uploadDemand, room));

  const drop = (index: number): void => {
    kept[index] = false;
    reasons[index] = 'budget';
  };
  // Messages, newest first, within what the uploads' room leaves.
  let historyUsed = 0;
  let cutAt = -1;
  const keepMessagesFrom = (start: number, limit: number): void => {
    for (let index = start; index >= 0; index--) {
      const block = blocks[index];
      if (block === undefined || block.isRequired || block.isUpload || kept[index] !== true)
        continue;
      if (broughtQuestions.has(index)) continue;
      if (cutAt < 0 && historyUsed + block.tokens <= limit) {
        historyUsed += block.tokens;
      } else {
        if (cutAt < 0) cutAt = index;
        drop(index);
      }
    }
  };
  keepMessagesFrom(blocks.length - 1, room - uploadRoom);
  if (uploadDemand === 0) return historyUsed;

  // Files, newest first, in what is left, each with its question.
  let uploadUsed = 0;
  let isFileCut = false;
  for (let index = blocks.length - 1; index >= 0; index--) {
    const block = blocks[index];
    if (block === undefined || block.isRequired || !block.isUpload || kept[index] !== true)
      continue;
    const question = index + 1;
    const isQuestion = blocks[question]?.sourceId === block.sourceId;
    const canBring = isQuestion && kept[question] !== true && reasons[question] === 'budget';
    const cost = block.tokens + (canBring ? (blocks[question]?.tokens ?? 0) : 0);
    // A question brought back opens a gap in the history, and so one more skipped marker.
    const markerCost = canBring ? gapMarkerTokens : 0;
    const hasQuestion = isQuestion && (kept[question] === true || canBring);
    if (!isFileCut && hasQuestion && historyUsed + uploadUsed + cost + markerCost <= room) {
      uploadUsed += cost;
      if (canBring) {
        kept[question] = true;
        reasons[question] = undefined;
        broughtQuestions.add(question);
      }
    } else {
      isFileCut = true;
      drop(index);
    }
  }
  // Room the files did not use goes back to the messages older than the cut.
  if (cutAt >= 0 && uploadUsed < uploadRoom) {
    const resumeAt = cutAt;
    for (let index = resumeAt; index >= 0; index--) {
      const block = blocks[index];
      if (block === undefined || block.isRequired || block.isUpload || block.elided) continue;
      if (reasons[index] !== 'budget') continue;
      kept[index] = true;
      reasons[index] = undefined;
    }
    cutAt = -1;
    keepMessagesFrom(resumeAt, room - uploadUsed);
  }
  return historyUsed + uploadUsed;
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
  const uploadShare = resolveUploadShare(env.input.agent);
  const kept = selectByStrategy(blocks, strategy);
  const reasons: Array<DropReason | undefined> = kept.map((isKept) =>
    isKept ? undefined : 'strategy',
  );
  // History the collection only summed up lies past what the budget can hold: it goes.
  blocks.forEach((block, index) => {
    if (block.elided === undefined || kept[index] !== true) return;
    kept[index] = false;
    reasons[index] = 'budget';
  });

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

  const broughtQuestions = new Set<number>();
  running += keepNewestWithinShares(
    blocks,
    kept,
    reasons,
    available - running,
    uploadShare,
    broughtQuestions,
    env.meter.priceMessage(env.meter.countText(describeSkipped(GAP_MARKER_COUNT))),
  );

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
    // A question kept only for its file goes with it.
    const question = oldest + 1;
    const questionBlock = blocks[question];
    if (broughtQuestions.has(question) && questionBlock !== undefined && kept[question] === true) {
      kept[question] = false;
      reasons[question] = 'budget';
      running -= questionBlock.tokens;
      ledger.drop(question);
    }
  }
}
