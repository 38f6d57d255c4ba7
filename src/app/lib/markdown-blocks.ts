/**
 * Splits Markdown into finished blocks and the unfinished tail, so a streaming answer re-renders
 * only the tail. Rendering the blocks one by one must give what rendering the whole text gives,
 * so a block is finished only where markdown-it could not join it to what follows:
 *
 * - a blank line outside a code fence or a `$$` / `\[` math block ends a block;
 * - except after a list or an indented code block, when the next line is indented or another
 *   list item (a loose list, a paragraph inside an item, more code): that line belongs to the
 *   same block, so what the blank line means waits for the next line;
 * - a reference definition (`[label]: url`) may serve links in any block, so a text holding one
 *   is a single block.
 *
 * The tail is everything after the last finished block.
 */
export interface MarkdownBlocks {
  finished: string[];
  tail: string;
}

const FENCE_PATTERN = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM_PATTERN = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const INDENTED_PATTERN = /^[ \t]/;
const INDENTED_CODE_PATTERN = /^(?: {4}|\t)/;
const REFERENCE_DEFINITION_PATTERN = /^ {0,3}\[[^\]]+\]:/;

interface BlockScan extends MarkdownBlocks {
  /** Where the tail starts in the scanned text: the scan restarts there with a clean state. */
  tailStart: number;
  hasReferenceDefinition: boolean;
}

function isBlank(line: string): boolean {
  return line.trim() === '';
}

/** Display-math fences (`$$…$$`, `\[…\]`) as the math rule reads them: open at a line's start. */
const MATH_FENCES: ReadonlyArray<readonly [open: string, close: string]> = [
  ['$$', '$$'],
  ['\\[', '\\]'],
];

/** The fence that closes the math block this line opens, or null when it opens none. */
function openMath(line: string): string | null {
  const trimmed = line.trim();
  const fence = MATH_FENCES.find(([open]) => trimmed.startsWith(open));
  if (fence === undefined) return null;
  return trimmed.slice(fence[0].length).trim().endsWith(fence[1]) ? null : fence[1];
}

function scanBlocks(source: string): BlockScan {
  const lines = source.split('\n');
  const finished: string[] = [];
  let current: string[] = [];
  let currentStart = 0;
  let fence: string | null = null;
  /** Inside a display-math block: the fence that closes it. */
  let mathClose: string | null = null;
  /** A list or indented code: blank lines inside it are not boundaries. */
  let isContinuable = false;
  /** Blank lines after such a block: whether they end it depends on the next line. */
  let isPaused = false;
  let hasReferenceDefinition = false;

  const finishBlock = (): void => {
    let end = current.length;
    while (end > 0 && isBlank(current[end - 1] as string)) end--;
    if (end > 0) finished.push(current.slice(0, end).join('\n'));
    current = [];
    isContinuable = false;
    isPaused = false;
  };

  let lineStart = 0;
  for (const [index, line] of lines.entries()) {
    const start = lineStart;
    lineStart += line.length + 1;
    if (fence !== null) {
      current.push(line);
      const match = FENCE_PATTERN.exec(line);
      if (match?.[1] && match[1][0] === fence[0] && match[1].length >= fence.length && line.trim() === match[1]) fence = null;
      continue;
    }
    // Only a whole line decides: "2" may yet become "2. item" (the last line may be cut short).
    const isLast = index === lines.length - 1;
    if (isPaused && !isBlank(line) && !isLast) {
      isPaused = false;
      if (!INDENTED_PATTERN.test(line) && !LIST_ITEM_PATTERN.test(line)) {
        finishBlock();
        currentStart = start;
      }
    }
    const fenceMatch = FENCE_PATTERN.exec(line);
    if (fenceMatch?.[1]) {
      fence = fenceMatch[1];
      current.push(line);
      continue;
    }
    if (REFERENCE_DEFINITION_PATTERN.test(line)) hasReferenceDefinition = true;
    if (mathClose === null) mathClose = openMath(line);
    else if (line.trim().endsWith(mathClose)) mathClose = null;
    const isInMath = mathClose !== null;
    // A blank line that is not the very end of the text closes the block before it.
    if (isBlank(line) && !isInMath && !isLast) {
      if (isContinuable) {
        isPaused = true;
        current.push(line);
        continue;
      }
      finishBlock();
      currentStart = lineStart;
      continue;
    }
    if (!isInMath && (LIST_ITEM_PATTERN.test(line) || (current.length === 0 && INDENTED_CODE_PATTERN.test(line))))
      isContinuable = true;
    current.push(line);
  }
  return { finished, tail: current.join('\n'), tailStart: currentStart, hasReferenceDefinition };
}

export function splitMarkdownBlocks(source: string): MarkdownBlocks {
  const { finished, tail, hasReferenceDefinition } = scanBlocks(source);
  return hasReferenceDefinition ? { finished: [], tail: source } : { finished, tail };
}

/**
 * `splitMarkdownBlocks` for a text that grows at its end (a streaming answer): each call scans
 * only the previous tail and what was appended, and keeps the finished blocks it already had (the
 * same strings, so a keyed list sees them unchanged). Any other change scans the text afresh.
 */
export function createBlockSplitter(): (source: string) => MarkdownBlocks {
  let previous: string | null = null;
  let finished: string[] = [];
  let tailStart = 0;
  let isWhole = false;
  let result: MarkdownBlocks = { finished: [], tail: '' };

  return (source) => {
    if (source === previous) return result;
    const isAppend = previous !== null && source.startsWith(previous);
    previous = source;
    if (!isAppend) {
      finished = [];
      tailStart = 0;
      isWhole = false;
    }
    if (!isWhole) {
      const scan = scanBlocks(tailStart === 0 ? source : source.slice(tailStart));
      isWhole = scan.hasReferenceDefinition;
      if (scan.finished.length > 0) finished = [...finished, ...scan.finished];
      tailStart += scan.tailStart;
    }
    result = isWhole ? { finished: [], tail: source } : { finished, tail: source.slice(tailStart) };
    return result;
  };
}
