// The chunker as it was before oversized blocks were cut in bounded windows, kept verbatim as the
// oracle that proves ordinary text still chunks exactly as before. Do not edit.
/**
 * Token-aware chunking. The text is cut into blocks that never cross a page or a heading
 * (Markdown headings, paragraphs, fenced code blocks), blocks are packed greedily up to
 * TARGET_CHUNK_TOKENS, and a chunk that continues the same section starts with the tail of the
 * previous one (CHUNK_OVERLAP_RATIO) so a sentence cut at a boundary is still found whole.
 */
import type { PageSpan } from '../../../../src/core/ports';

export const TARGET_CHUNK_TOKENS = 450;
export const MAX_CHUNK_TOKENS = 512;
export const CHUNK_OVERLAP_RATIO = 0.15;
/** A heading closes the current chunk only when it already carries this much text. */
export const MIN_TOKENS_BEFORE_HEADING_BREAK = 48;

export type ChunkTextKind = 'markdown' | 'code' | 'plain';

export interface ChunkTextInput {
  text: string;
  kind: ChunkTextKind;
  /** Page starts (PDF); chunks never cross a page. */
  pageMap?: readonly PageSpan[];
}

export interface ChunkTextOptions {
  targetTokens?: number;
  maxTokens?: number;
  overlapRatio?: number;
}

/** One chunk of a file: its text is exactly `text.slice(charStart, charEnd)` of the file. */
export interface DocumentChunk {
  ordinal: number;
  text: string;
  charStart: number;
  charEnd: number;
  /** 1-based page (PDF), or null. */
  page: number | null;
  /** Enclosing Markdown headings, outermost first. */
  headingPath: string[];
  tokenCount: number;
}

type CountTokens = (text: string) => number;

interface Block {
  start: number;
  end: number;
  tokens: number;
  page: number | null;
  headingPath: string[];
  /** A heading line: the chunk may break before it. */
  isHeading: boolean;
  /** First block of a new page or section: never overlaps with the previous chunk. */
  isHardBreak: boolean;
}

const HEADING_PATTERN = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/;
const FENCE_PATTERN = /^[ \t]*(```|~~~)/;

export function chunkTextBefore(
  input: ChunkTextInput,
  countTokens: CountTokens,
  options: ChunkTextOptions = {},
): DocumentChunk[] {
  const targetTokens = options.targetTokens ?? TARGET_CHUNK_TOKENS;
  const maxTokens = Math.max(options.maxTokens ?? MAX_CHUNK_TOKENS, targetTokens);
  const overlapTokens = Math.floor(targetTokens * (options.overlapRatio ?? CHUNK_OVERLAP_RATIO));
  const blocks: Block[] = [];
  for (const page of splitPages(input.text, input.pageMap)) {
    const pageBlocks = splitBlocks(input.text, page.start, page.end, input.kind).map((raw, i) => ({
      ...raw,
      page: page.page,
      isHardBreak: raw.isHardBreak || i === 0,
    }));
    for (const block of pageBlocks)
      blocks.push(...splitOversized(input.text, block, maxTokens, countTokens));
  }
  return packBlocks(input.text, blocks, { targetTokens, maxTokens, overlapTokens }, countTokens);
}

function splitPages(
  text: string,
  pageMap: readonly PageSpan[] | undefined,
): Array<{ start: number; end: number; page: number | null }> {
  if (pageMap === undefined || pageMap.length === 0)
    return [{ start: 0, end: text.length, page: null }];
  const sorted = [...pageMap].sort((a, b) => a.offset - b.offset);
  return sorted.map((span, i) => ({
    start: Math.min(span.offset, text.length),
    end: Math.min(sorted[i + 1]?.offset ?? text.length, text.length),
    page: span.page,
  }));
}

type RawBlock = Omit<Block, 'tokens' | 'page'> & { tokens?: number };

/** Paragraphs, headings and fenced code blocks of one page, as character ranges. */
function splitBlocks(text: string, from: number, to: number, kind: ChunkTextKind): RawBlock[] {
  const blocks: RawBlock[] = [];
  const headings: Array<{ level: number; title: string }> = [];
  let paragraphStart = -1;
  let paragraphEnd = -1;
  let fenceStart = -1;
  let fenceMarker = '';
  const path = () => headings.map((h) => h.title);
  const closeParagraph = () => {
    if (paragraphStart >= 0)
      blocks.push({
        start: paragraphStart,
        end: paragraphEnd,
        headingPath: path(),
        isHeading: false,
        isHardBreak: false,
      });
    paragraphStart = -1;
  };
  let lineStart = from;
  while (lineStart < to) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline < 0 || newline >= to ? to : newline;
    const line = text.slice(lineStart, lineEnd);
    const next = lineEnd + 1;
    if (kind === 'markdown' && fenceStart >= 0) {
      if (line.trimStart().startsWith(fenceMarker)) {
        blocks.push({
          start: fenceStart,
          end: lineEnd,
          headingPath: path(),
          isHeading: false,
          isHardBreak: false,
        });
        fenceStart = -1;
      }
      lineStart = next;
      continue;
    }
    const fence = kind === 'markdown' ? FENCE_PATTERN.exec(line) : null;
    const heading = kind === 'markdown' ? HEADING_PATTERN.exec(line) : null;
    if (fence) {
      closeParagraph();
      fenceStart = lineStart;
      fenceMarker = fence[1] ?? '```';
    } else if (heading) {
      closeParagraph();
      const level = heading[1]?.length ?? 1;
      while (headings.length > 0 && (headings[headings.length - 1]?.level ?? 0) >= level)
        headings.pop();
      headings.push({ level, title: (heading[2] ?? '').trim() });
      blocks.push({
        start: lineStart,
        end: lineEnd,
        headingPath: path(),
        isHeading: true,
        isHardBreak: false,
      });
    } else if (line.trim() === '') {
      closeParagraph();
    } else {
      if (paragraphStart < 0) paragraphStart = lineStart;
      paragraphEnd = lineEnd;
    }
    lineStart = next;
  }
  closeParagraph();
  // An unclosed fence runs to the end of the page.
  if (fenceStart >= 0)
    blocks.push({
      start: fenceStart,
      end: to,
      headingPath: path(),
      isHeading: false,
      isHardBreak: false,
    });
  return blocks.filter((block) => text.slice(block.start, block.end).trim() !== '');
}

/** Cuts a block longer than `maxTokens` at lines, then sentences, then words. */
function splitOversized(
  text: string,
  block: Omit<Block, 'tokens'>,
  maxTokens: number,
  countTokens: CountTokens,
): Block[] {
  const tokens = countTokens(text.slice(block.start, block.end));
  if (tokens <= maxTokens) return [{ ...block, tokens }];
  const pieces: Block[] = [];
  let start = block.start;
  while (start < block.end) {
    const end = findCut(text, start, block.end, maxTokens, countTokens);
    pieces.push({
      ...block,
      start,
      end,
      tokens: countTokens(text.slice(start, end)),
      isHardBreak: block.isHardBreak && start === block.start,
      isHeading: block.isHeading && start === block.start,
    });
    start = end;
    while (start < block.end && /\s/.test(text[start] ?? '')) start++;
  }
  return pieces;
}

const CUT_PATTERNS = [/\n/g, /[.!?;:]\s/g, /\s/g];

/** The furthest natural cut after `start` whose slice fits `maxTokens` (always progresses). */
function findCut(
  text: string,
  start: number,
  end: number,
  maxTokens: number,
  countTokens: CountTokens,
): number {
  if (countTokens(text.slice(start, end)) <= maxTokens) return end;
  for (const pattern of CUT_PATTERNS) {
    const cuts: number[] = [];
    const slice = text.slice(start, end);
    for (const match of slice.matchAll(pattern)) cuts.push(start + match.index + match[0].length);
    const best = largestFitting(cuts, (cut) => countTokens(text.slice(start, cut)) <= maxTokens);
    if (best !== undefined && best > start) return best;
  }
  // No whitespace at all: cut by characters, a token is at least one character.
  const charCuts = Array.from({ length: end - start }, (_, i) => start + i + 1);
  return (
    largestFitting(charCuts, (cut) => countTokens(text.slice(start, cut)) <= maxTokens) ?? start + 1
  );
}

/** Binary search over ascending candidates for the largest one that still fits. */
function largestFitting(
  candidates: readonly number[],
  fits: (cut: number) => boolean,
): number | undefined {
  let low = 0;
  let high = candidates.length - 1;
  let best: number | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const candidate = candidates[middle] as number;
    if (fits(candidate)) {
      best = candidate;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return best;
}

/** The start of the previous chunk's tail of at most `overlapTokens`, at a word boundary. */
function findOverlapStart(
  text: string,
  start: number,
  end: number,
  overlapTokens: number,
  countTokens: CountTokens,
): number {
  if (overlapTokens <= 0) return end;
  const slice = text.slice(start, end);
  const starts: number[] = [];
  for (const match of slice.matchAll(/\s+/g)) starts.push(start + match.index + match[0].length);
  // Ascending cut positions mean descending tail sizes; search for the earliest one that fits.
  const reversed = starts.filter((cut) => cut < end).reverse();
  const earliest = largestFitting(
    reversed.map((_, i) => i),
    (i) => countTokens(text.slice(reversed[i], end)) <= overlapTokens,
  );
  return earliest === undefined ? end : (reversed[earliest] as number);
}

function packBlocks(
  text: string,
  blocks: readonly Block[],
  limits: { targetTokens: number; maxTokens: number; overlapTokens: number },
  countTokens: CountTokens,
): DocumentChunk[] {
  const chunks: DocumentChunk[] = [];
  let current: { start: number; end: number; tokens: number; first: Block } | null = null;
  const flush = () => {
    if (current === null) return;
    const chunkText = text.slice(current.start, current.end);
    chunks.push({
      ordinal: chunks.length,
      text: chunkText,
      charStart: current.start,
      charEnd: current.end,
      page: current.first.page,
      headingPath: current.first.headingPath,
      tokenCount: countTokens(chunkText),
    });
    current = null;
  };
  for (const block of blocks) {
    if (current !== null) {
      const isSectionBreak = block.isHeading && current.tokens >= MIN_TOKENS_BEFORE_HEADING_BREAK;
      const isFull = current.tokens + block.tokens > limits.targetTokens;
      if (block.isHardBreak || isSectionBreak) {
        flush();
      } else if (isFull) {
        const previous = current;
        flush();
        const overlapStart = findOverlapStart(
          text,
          previous.start,
          previous.end,
          limits.overlapTokens,
          countTokens,
        );
        if (overlapStart < previous.end) {
          const overlapTokens = countTokens(text.slice(overlapStart, previous.end));
          if (overlapTokens + block.tokens + 1 <= limits.maxTokens) {
            current = {
              start: overlapStart,
              end: block.end,
              tokens: overlapTokens + block.tokens + 1,
              first: block,
            };
            continue;
          }
        }
      } else {
        current.end = block.end;
        // The blank line between blocks costs a token too.
        current.tokens += block.tokens + 1;
        continue;
      }
    }
    current = { start: block.start, end: block.end, tokens: block.tokens, first: block };
  }
  flush();
  return chunks;
}
