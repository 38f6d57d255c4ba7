/**
 * Splits Markdown into finished blocks and the unfinished tail, so a streaming answer re-renders
 * only the tail: a block is finished once a blank line follows it outside a code fence or a
 * `$$` math block. The tail is everything after the last such boundary.
 */
export interface MarkdownBlocks {
  finished: string[];
  tail: string;
}

const FENCE_PATTERN = /^ {0,3}(`{3,}|~{3,})/;

export function splitMarkdownBlocks(source: string): MarkdownBlocks {
  const lines = source.split('\n');
  const finished: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  let isInMath = false;
  lines.forEach((line, index) => {
    const isLast = index === lines.length - 1;
    if (fence !== null) {
      current.push(line);
      const match = FENCE_PATTERN.exec(line);
      if (match?.[1] && match[1][0] === fence[0] && match[1].length >= fence.length && line.trim() === match[1]) fence = null;
      return;
    }
    const fenceMatch = FENCE_PATTERN.exec(line);
    if (fenceMatch?.[1]) {
      fence = fenceMatch[1];
      current.push(line);
      return;
    }
    if (line.trim() === '$$' || (line.trim().startsWith('$$') && !line.trim().slice(2).includes('$$'))) {
      isInMath = !isInMath;
    } else if (isInMath && line.trim().endsWith('$$')) {
      isInMath = false;
    }
    // A blank line that is not the very end of the text closes the block before it.
    if (line.trim() === '' && !isInMath && !isLast) {
      if (current.some((l) => l.trim() !== '')) finished.push(current.join('\n'));
      current = [];
      return;
    }
    current.push(line);
  });
  return { finished, tail: current.join('\n') };
}
