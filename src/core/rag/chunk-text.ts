/**
 * Token-aware chunking. The text is cut into blocks that never cross a page or a heading
 * (Markdown headings, paragraphs, fenced code blocks), blocks are packed greedily up to
 * TARGET_CHUNK_TOKENS, and a chunk that continues the same section starts with the tail of the
 * previous one (CHUNK_OVERLAP_RATIO) so a sentence cut at a boundary is still found whole.
 */
import type { PageSpan } from '../ports';

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

export function chunkText(
  input: ChunkTextInput,
  countTokens: CountTokens,
  options: ChunkTextOptions = {},
): DocumentChunk[] {
  const steps = chunkTextInSteps(input, countTokens, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Share of the progress that cutting the text into blocks stands for; packing is the rest. */
const SPLIT_PROGRESS_SHARE = 0.8;

/**
 * `chunkText` one step at a time: it pauses after each block and each cut of a long block,
 * yielding how far it got (0–1), so a caller can show progress, let other work run, or stop.
 */
export function* chunkTextInSteps(
  input: ChunkTextInput,
  countTokens: CountTokens,
  options: ChunkTextOptions = {},
): Generator<number, DocumentChunk[]> {
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
    for (const block of pageBlocks) {
      for (const piece of splitOversized(input.text, block, maxTokens, countTokens)) {
        blocks.push(piece);
        yield (SPLIT_PROGRESS_SHARE * piece.end) / Math.max(input.text.length, 1);
      }
    }
  }
  const limits = { targetTokens, maxTokens, overlapTokens };
  const packing = packBlocks(input.text, blocks, limits, countTokens);
  for (;;) {
    const step = packing.next();
    if (step.done) return step.value;
    yield SPLIT_PROGRESS_SHARE + (1 - SPLIT_PROGRESS_SHARE) * step.value;
  }
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

/**
 * A block longer than this many characters is never counted whole: no ordinary paragraph is
 * this long, and a file without blank lines (a CSV, a log, one long line) is one block, which
 * is cut piece by piece instead (see `findCut`).
 */
const MAX_BLOCK_CHARS_COUNTED_WHOLE = 64 * 1024;
/** Before the first cut of a block, guess this many characters per token. */
const GUESSED_CHARS_PER_TOKEN = 4;

/** The block, or its pieces when it is longer than `maxTokens`: cut at lines, then sentences, then words. */
function* splitOversized(
  text: string,
  block: Omit<Block, 'tokens'>,
  maxTokens: number,
  countTokens: CountTokens,
): Generator<Block> {
  if (block.end - block.start <= MAX_BLOCK_CHARS_COUNTED_WHOLE) {
    const tokens = countTokens(text.slice(block.start, block.end));
    if (tokens <= maxTokens) {
      yield { ...block, tokens };
      return;
    }
  }
  let start = block.start;
  let expectedChars = maxTokens * GUESSED_CHARS_PER_TOKEN;
  while (start < block.end) {
    const cut = findCut(text, start, block.end, maxTokens, countTokens, expectedChars);
    yield {
      ...block,
      start,
      end: cut.end,
      tokens: cut.tokens,
      isHardBreak: block.isHardBreak && start === block.start,
      isHeading: block.isHeading && start === block.start,
    };
    // The next piece is most likely about as long as this one.
    expectedChars = Math.max(cut.end - start, 1);
    start = cut.end;
    while (start < block.end && /\s/.test(text[start] ?? '')) start++;
  }
}

const CUT_PATTERNS = [/\n/g, /[.!?;:]\s/g, /\s/g];

/**
 * The furthest natural cut after `start` whose slice fits `maxTokens` (always progresses), with
 * the tokens of that slice. Token counts grow with the slice, so the search looks only at a
 * window a little longer than the expected piece (doubled while its end still fits) and starts
 * from the expected length: each cut costs two or three counts of about one piece however long
 * the rest of the block is, which keeps chunking linear in the text.
 */
function findCut(
  text: string,
  start: number,
  blockEnd: number,
  maxTokens: number,
  countTokens: CountTokens,
  expectedChars: number,
): { end: number; tokens: number } {
  const counted = new Map<number, number>();
  const count = (cut: number) => {
    let tokens = counted.get(cut);
    if (tokens === undefined) {
      tokens = countTokens(text.slice(start, cut));
      counted.set(cut, tokens);
    }
    return tokens;
  };
  const fits = (cut: number) => count(cut) <= maxTokens;
  const expectedEnd = start + expectedChars;
  let windowChars = Math.ceil(expectedChars * 1.25) + 16;
  for (;;) {
    const end = Math.min(blockEnd, start + windowChars);
    if (end === blockEnd && fits(end)) return { end, tokens: count(end) };
    const slice = text.slice(start, end);
    let isWindowShort = false;
    // Lines, then sentences, then words; without any whitespace, characters (a token is at
    // least one character).
    for (const pattern of [...CUT_PATTERNS, null]) {
      const cuts =
        pattern === null
          ? Array.from({ length: end - start }, (_, i) => start + i + 1)
          : Array.from(slice.matchAll(pattern), (match) => start + match.index + match[0].length);
      // The window's end closes every list: when even it fits, the window was too short.
      if (cuts.at(-1) !== end) cuts.push(end);
      const cut = findLargestFitting(cuts, countAtMost(cuts, expectedEnd) - 1, fits);
      if (cut === end && end < blockEnd) {
        isWindowShort = true;
        break;
      }
      if (cut !== undefined && cut > start) return { end: cut, tokens: count(cut) };
    }
    if (!isWindowShort) return { end: start + 1, tokens: count(start + 1) };
    windowChars *= 2;
  }
}

/** How many of the ascending `values` are at most `limit`. */
function countAtMost(values: readonly number[], limit: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((values[middle] as number) <= limit) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The largest of the ascending candidates that still fits, for a test that holds up to some
 * candidate and fails after it: galloping from the candidate at `guessIndex` and then
 * bisecting, so a good guess costs two or three tests. Same answer as bisecting the whole list.
 */
function findLargestFitting(
  candidates: readonly number[],
  guessIndex: number,
  fits: (cut: number) => boolean,
): number | undefined {
  if (candidates.length === 0) return undefined;
  const at = (index: number) => candidates[index] as number;
  // `low` is known to fit (or -1), `high` known not to (or the length).
  let low = -1;
  let high = candidates.length;
  const guess = Math.min(Math.max(guessIndex, 0), candidates.length - 1);
  let step = 1;
  if (fits(at(guess))) {
    low = guess;
    while (low + step < high) {
      if (!fits(at(low + step))) {
        high = low + step;
        break;
      }
      low += step;
      step *= 2;
    }
  } else {
    high = guess;
    while (high - step > low) {
      if (fits(at(high - step))) {
        low = high - step;
        break;
      }
      high -= step;
      step *= 2;
    }
  }
  while (high - low > 1) {
    const middle = (low + high) >> 1;
    if (fits(at(middle))) low = middle;
    else high = middle;
  }
  return low >= 0 ? at(low) : undefined;
}

/**
 * The start of the previous chunk's tail of at most `overlapTokens`, at a word boundary. The
 * search starts where the chunk's own token density puts that many tokens.
 */
function findOverlapStart(
  text: string,
  previous: { start: number; end: number; tokens: number },
  overlapTokens: number,
  countTokens: CountTokens,
): number {
  const { start, end } = previous;
  if (overlapTokens <= 0) return end;
  const slice = text.slice(start, end);
  const starts: number[] = [];
  for (const match of slice.matchAll(/\s+/g)) starts.push(start + match.index + match[0].length);
  // Ascending cut positions mean descending tail sizes; search for the earliest one that fits.
  const reversed = starts.filter((cut) => cut < end).reverse();
  const expectedStart = end - (overlapTokens * (end - start)) / Math.max(previous.tokens, 1);
  const guess = reversed.findIndex((cut) => cut < expectedStart);
  const earliest = findLargestFitting(
    reversed.map((_, i) => i),
    (guess < 0 ? reversed.length : guess) - 1,
    (i) => countTokens(text.slice(reversed[i], end)) <= overlapTokens,
  );
  return earliest === undefined ? end : (reversed[earliest] as number);
}

/** The chunk being packed. */
interface OpenChunk {
  start: number;
  end: number;
  tokens: number;
  first: Block;
  /** One block as counted, so its tokens need no second count. */
  isExact: boolean;
}

/** Packs the blocks into chunks, yielding the share of blocks packed as it goes. */
function* packBlocks(
  text: string,
  blocks: readonly Block[],
  limits: { targetTokens: number; maxTokens: number; overlapTokens: number },
  countTokens: CountTokens,
): Generator<number, DocumentChunk[]> {
  const chunks: DocumentChunk[] = [];
  let current: OpenChunk | null = null;
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
      tokenCount: current.isExact ? current.tokens : countTokens(chunkText),
    });
    current = null;
  };
  for (const [index, block] of blocks.entries()) {
    if (index > 0) yield index / blocks.length;
    if (current !== null) {
      const isSectionBreak = block.isHeading && current.tokens >= MIN_TOKENS_BEFORE_HEADING_BREAK;
      const isFull = current.tokens + block.tokens > limits.targetTokens;
      if (block.isHardBreak || isSectionBreak) {
        flush();
      } else if (isFull) {
        const previous: OpenChunk = current;
        flush();
        // A tail of the previous chunk costs at least one token: look for one only if it fits.
        const overlapStart =
          block.tokens + 2 > limits.maxTokens
            ? previous.end
            : findOverlapStart(text, previous, limits.overlapTokens, countTokens);
        if (overlapStart < previous.end) {
          const overlapTokens = countTokens(text.slice(overlapStart, previous.end));
          if (overlapTokens + block.tokens + 1 <= limits.maxTokens) {
            current = {
              start: overlapStart,
              end: block.end,
              tokens: overlapTokens + block.tokens + 1,
              first: block,
              isExact: false,
            };
            continue;
          }
        }
      } else {
        current.end = block.end;
        current.isExact = false;
        // The blank line between blocks costs a token too.
        current.tokens += block.tokens + 1;
        continue;
      }
    }
    current = {
      start: block.start,
      end: block.end,
      tokens: block.tokens,
      first: block,
      isExact: true,
    };
  }
  flush();
  return chunks;
}
