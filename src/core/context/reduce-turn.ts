import type { ToolCall, ToolResult } from '../model';
import { joinDocumentLines, splitDocumentLines, type DocumentLine } from './documents';
import type { Block, CallOverride, TokenMeter } from './parts/part';
import type { Reduction } from './types';

/**
 * The turn reducer: when the newest turn does not fit, its tool results are
 * sent shorter instead of failing the request. First the lowest-ranked sources of search and
 * retrieval results go (a result's documents are in rank order; each call keeps at least one),
 * then long results are truncated, oldest first, each with a marker the model can read. The
 * kept documents keep their citation numbers, so a citation still points at its passage, and
 * what is stored stays whole.
 */

/** A note after a documents result that lost sources, e.g. "documents 4 and 5". */
export function describeDroppedSources(numbers: readonly number[]): string {
  const names = numbers.map(String);
  const list =
    names.length === 1
      ? `document ${names[0] ?? ''}`
      : `documents ${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
  const count = numbers.length === 1 ? 'source' : 'sources';
  return `[Left out to fit the context: ${numbers.length} lower-ranked ${count} of this result (${list}).]`;
}

export function describeTruncation(shownTokens: number, totalTokens: number): string {
  return `[Truncated to fit the context: only the first ${shownTokens} of ${totalTokens} tokens of this result are shown.]`;
}

export function describeOmittedResult(totalTokens: number): string {
  return `[This result (${totalTokens} tokens) was left out to fit the context.]`;
}

const TRUNCATION_SEPARATOR = '\n\n';
/** How many times a cut is re-measured before it is accepted as fitting. */
const MAX_CUT_ATTEMPTS = 6;
/** Each new attempt aims this much lower than the last measure suggested. */
const CUT_SAFETY = 0.97;

/** The longest start of `text` of at most `maxTokens` tokens (measured, never guessed). */
export function cutToTokens(text: string, maxTokens: number, meter: TokenMeter): string {
  if (maxTokens <= 0) return '';
  const total = meter.countText(text);
  if (total <= maxTokens) return text;
  let chars = Math.floor((text.length * maxTokens) / total);
  for (let attempt = 0; attempt < MAX_CUT_ATTEMPTS && chars > 0; attempt++) {
    // Never split a surrogate pair.
    const code = text.charCodeAt(chars - 1);
    if (code >= 0xd800 && code <= 0xdbff) chars--;
    const head = text.slice(0, chars);
    const tokens = meter.countText(head);
    if (tokens <= maxTokens) return head;
    chars = Math.floor(((chars * maxTokens) / tokens) * CUT_SAFETY);
  }
  return '';
}

type CompleteCall = ToolCall & { result: ToolResult };

/** One tool result of the newest turn that may be sent shorter. */
interface ReducibleCall {
  blockIndex: number;
  call: CompleteCall;
  /** The documents in rank order, or null for a plain-text result. */
  documents: DocumentLine[] | null;
  /** Notes after the documents JSON. */
  suffix: string;
  /** Line tokens of each document, counted when the first one is dropped. */
  documentTokens: number[] | null;
  keptDocuments: number;
  /** The most content tokens the text may have once truncated, or null when it is not. */
  truncateTo: number | null;
  /** Content tokens as sent now. */
  tokens: number;
}

export interface TurnReducer {
  /**
   * Sends the newest turn's results shorter by about `excess` tokens, replacing their blocks in
   * `blocks`. False when nothing more can be taken away.
   */
  reduce(excess: number): boolean;
  /** What was reduced, per block index (the caller reports only blocks that are sent). */
  reductions(): Array<{ blockIndex: number; reduction: Reduction }>;
}

function isReducible(call: ToolCall): call is CompleteCall {
  return call.status === 'complete' && call.result !== undefined && !call.result.isError;
}

/** The results of the newest turn, oldest first, that are sent in full and could be shorter. */
function findReducibleCalls(blocks: readonly Block[]): ReducibleCall[] {
  const found: ReducibleCall[] = [];
  blocks.forEach((block, blockIndex) => {
    const step = block.stepCalls;
    if (block.part !== 'newest_turn' || step === undefined || !step.isCurrentTurn) return;
    for (const call of step.calls) {
      if (!isReducible(call) || step.overrides.has(call.id)) continue;
      const split = (call.result.documents?.length ?? 0) > 0 ? splitDocumentLines(call.result.content) : null;
      const documents = split?.documents ?? null;
      found.push({
        blockIndex,
        call,
        documents,
        suffix: split?.suffix ?? '',
        documentTokens: null,
        keptDocuments: documents?.length ?? 0,
        truncateTo: null,
        tokens: call.result.tokenCount,
      });
    }
  });
  return found;
}

/** Reads one document line's contents and puts truncated contents back, keeping the key order. */
function truncateDocumentLine(line: string, maxTokens: number, meter: TokenMeter): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || !('contents' in parsed)) return null;
  const doc = parsed as Record<string, unknown>;
  const contents = typeof doc.contents === 'string' ? doc.contents : '';
  const framing = meter.countText(JSON.stringify({ ...doc, contents: '' }));
  const total = meter.countText(contents);
  const marker = describeTruncation(0, total);
  const room = maxTokens - framing - meter.countText(TRUNCATION_SEPARATOR + marker);
  const head = cutToTokens(contents, room, meter);
  if (head.length === 0) return null;
  const shown = meter.countText(head);
  return JSON.stringify({
    ...doc,
    contents: `${head}${TRUNCATION_SEPARATOR}${describeTruncation(shown, total)}`,
  });
}

/** The result as sent now, from the stored content and the reductions decided so far. */
function renderReduced(item: ReducibleCall, meter: TokenMeter): string {
  const stored = item.call.result.content;
  const storedTokens = item.call.result.tokenCount;
  const limit = item.truncateTo;
  if (item.documents !== null) {
    const kept = item.documents.slice(0, item.keptDocuments);
    const dropped = item.documents.slice(item.keptDocuments).map((doc) => doc.number);
    const note = dropped.length > 0 ? `\n\n${describeDroppedSources(dropped)}` : '';
    const lines = kept.map((doc) => doc.line);
    if (limit !== null) {
      const last = lines.length - 1;
      const others = lines.slice(0, last).reduce((sum, line) => sum + meter.countText(line), 0);
      const room = limit - others - meter.countText(`${note}${item.suffix}`);
      const cut = truncateDocumentLine(lines[last] ?? '', room, meter);
      if (cut === null) return describeOmittedResult(storedTokens);
      lines[last] = cut;
    }
    return `${joinDocumentLines(lines)}${note}${item.suffix}`;
  }
  if (limit === null) return stored;
  const room = limit - meter.countText(TRUNCATION_SEPARATOR + describeTruncation(0, storedTokens));
  const head = cutToTokens(stored, room, meter);
  if (head.length === 0) return describeOmittedResult(storedTokens);
  return `${head}${TRUNCATION_SEPARATOR}${describeTruncation(meter.countText(head), storedTokens)}`;
}

function describeLabel(item: ReducibleCall): string {
  const parts: string[] = [];
  const dropped = (item.documents?.length ?? 0) - item.keptDocuments;
  if (dropped > 0) parts.push(`${dropped} ${dropped === 1 ? 'source' : 'sources'} left out`);
  if (item.truncateTo !== null) parts.push('truncated');
  return `${item.call.name}: ${parts.join(', ')} to fit`;
}

/**
 * Takes the lowest-ranked source of the call holding the most (oldest first on a tie), so each
 * call keeps its best sources; returns the call and about how many tokens went, or null when
 * every call is down to one source.
 */
function dropOneSource(
  calls: readonly ReducibleCall[],
  meter: TokenMeter,
): { item: ReducibleCall; saved: number } | null {
  let pick: ReducibleCall | undefined;
  for (const item of calls) {
    if (item.documents === null || item.keptDocuments <= 1) continue;
    if (pick === undefined || item.keptDocuments > pick.keptDocuments) pick = item;
  }
  if (pick?.documents == null) return null;
  pick.documentTokens ??= pick.documents.map((doc) => meter.countText(doc.line));
  pick.keptDocuments--;
  return { item: pick, saved: pick.documentTokens[pick.keptDocuments] ?? 0 };
}

export function createTurnReducer(blocks: Block[], meter: TokenMeter): TurnReducer {
  const calls = findReducibleCalls(blocks);
  const originals = new Map<number, Block>();

  const apply = (touched: ReadonlySet<ReducibleCall>): void => {
    const byBlock = new Map<number, Array<{ item: ReducibleCall; output: string }>>();
    for (const item of touched) {
      const output = renderReduced(item, meter);
      item.tokens = meter.countText(output);
      const list = byBlock.get(item.blockIndex) ?? [];
      list.push({ item, output });
      byBlock.set(item.blockIndex, list);
    }
    for (const [blockIndex, items] of byBlock) {
      const original = originals.get(blockIndex) ?? blocks[blockIndex];
      const step = original?.stepCalls;
      if (original === undefined || step === undefined) continue;
      originals.set(blockIndex, original);
      const current = blocks[blockIndex]?.stepCalls?.overrides ?? step.overrides;
      const overrides = new Map<string, CallOverride>(current);
      for (const { item, output } of items) {
        overrides.set(item.call.id, {
          output,
          outputTokens: item.tokens,
          label: describeLabel(item),
        });
      }
      blocks[blockIndex] = step.adjust(overrides);
    }
  };

  return {
    reduce(excess) {
      let remaining = excess;
      const touched = new Set<ReducibleCall>();
      // 1. The lowest-ranked sources, spread so that every call keeps its best ones.
      while (remaining > 0) {
        const dropped = dropOneSource(calls, meter);
        if (dropped === null) break;
        touched.add(dropped.item);
        remaining -= dropped.saved;
      }
      // 2. Long results truncated, oldest first, each only as far as still needed.
      for (const item of calls) {
        if (remaining <= 0) break;
        if (item.documents !== null && item.keptDocuments > 1) continue;
        const before = item.tokens;
        const previous = item.truncateTo;
        const wanted = Math.max(0, before - remaining);
        // The marker and the JSON around a document cost tokens too: aim lower while over.
        let target = previous === null ? wanted : Math.max(0, Math.min(wanted, previous - 1));
        let after = before;
        for (let attempt = 0; attempt < MAX_CUT_ATTEMPTS; attempt++) {
          item.truncateTo = target;
          after = meter.countText(renderReduced(item, meter));
          if (after <= wanted || target === 0) break;
          target = Math.max(0, target - (after - wanted));
        }
        if (after >= before) {
          item.truncateTo = previous;
          continue;
        }
        touched.add(item);
        remaining -= before - after;
      }
      if (touched.size === 0) return false;
      apply(touched);
      return true;
    },
    reductions() {
      const reduced: Array<{ blockIndex: number; reduction: Reduction }> = [];
      for (const item of calls) {
        const droppedCount = (item.documents?.length ?? 0) - item.keptDocuments;
        if (droppedCount === 0 && item.truncateTo === null) continue;
        const base = {
          reason: 'turn_over_budget' as const,
          toolCallId: item.call.id,
          toolName: item.call.name,
          tokensBefore: item.call.result.tokenCount,
          tokensAfter: item.tokens,
        };
        reduced.push({
          blockIndex: item.blockIndex,
          reduction:
            droppedCount > 0
              ? {
                  ...base,
                  kind: item.truncateTo === null ? 'sources_dropped' : 'truncated',
                  droppedDocuments: (item.documents ?? [])
                    .slice(item.keptDocuments)
                    .map((doc) => doc.number),
                }
              : { ...base, kind: 'truncated' },
        });
      }
      return reduced;
    },
  };
}
