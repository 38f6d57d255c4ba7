/** About this many characters are counted between two pauses. */
export const COUNT_STEP_CHARS = 64 * 1024;

const WORD_CHAR_PATTERN = /[\p{L}\p{N}]/u;
const LETTER_PATTERN = /\p{L}/u;

/**
 * The first place at or after `from` where the text can be cut without changing its token
 * count: after a line break before a letter or digit, or before a space between two letters.
 * The BPE encodings split text into pieces before merging, and no piece spans such a place
 * (a word takes the space before it, never the one after), so the counts of the two sides add
 * up to the count of the whole. Without such a place, the end of the text.
 */
function findNeutralCut(text: string, from: number): number {
  for (let i = Math.max(from, 1); i < text.length - 1; i++) {
    const before = text[i - 1] ?? '';
    const char = text[i] ?? '';
    if (before === '\n' && WORD_CHAR_PATTERN.test(char)) return i;
    if (char === ' ' && WORD_CHAR_PATTERN.test(before) && LETTER_PATTERN.test(text[i + 1] ?? ''))
      return i;
  }
  return text.length;
}

/**
 * Counts the tokens of a long text piece by piece, pausing after each piece with how far it got
 * (0–1), so a worker can report progress, let other work run, or stop. Returns exactly what
 * counting the whole text at once returns.
 */
export function* countTokensInSteps(
  text: string,
  count: (text: string) => number,
  stepChars = COUNT_STEP_CHARS,
): Generator<number, number> {
  let total = 0;
  let start = 0;
  while (start < text.length) {
    const end = findNeutralCut(text, start + stepChars);
    total += count(text.slice(start, end));
    start = end;
    if (start < text.length) yield start / text.length;
  }
  return total;
}
