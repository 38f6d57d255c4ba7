import { describe, expect, it } from 'vitest';
import { countInBoundedRuns, MAX_UNBROKEN_RUN_CHARS } from '../../../../src/core/tokens/encoding';

/**
 * The pieces the counter is handed, as the earlier search cut them: a regular expression
 * asking for more than MAX_UNBROKEN_RUN_CHARS letters or punctuation at every position.
 */
function referencePieces(text: string): string[] {
  const runStart = new RegExp(
    `[\\p{L}\\p{M}]{${MAX_UNBROKEN_RUN_CHARS + 1}}|[^\\s\\p{L}\\p{N}]{${MAX_UNBROKEN_RUN_CHARS + 1}}`,
    'gu',
  );
  const pieces: string[] = [];
  let last = 0;
  for (;;) {
    runStart.lastIndex = last;
    const match = runStart.exec(text);
    if (match === null) break;
    const isLetters = /^[\p{L}\p{M}]/u.test(match[0]);
    const ahead = isLetters ? /[\p{L}\p{M}]{1,4096}/uy : /[^\s\p{L}\p{N}]{1,4096}/uy;
    let end = match.index;
    for (;;) {
      ahead.lastIndex = end;
      const more = ahead.exec(text);
      if (more === null) break;
      end += more[0].length;
    }
    pieces.push(text.slice(last, match.index));
    let cut = match.index;
    while (cut < end) {
      let next = Math.min(end, cut + MAX_UNBROKEN_RUN_CHARS);
      const code = text.charCodeAt(next);
      if (next < end && code >= 0xdc00 && code <= 0xdfff) next++;
      pieces.push(text.slice(cut, next));
      cut = next;
    }
    last = end;
  }
  pieces.push(text.slice(last));
  return pieces;
}

function pieces(text: string): string[] {
  const seen: string[] = [];
  countInBoundedRuns(text, (piece) => {
    seen.push(piece);
    return piece.length;
  });
  return seen;
}

/** Letters, marks, digits, punctuation, spaces, astral letters and a lone surrogate. */
const ALPHABET = ['a', 'Z', 'é', '\u0301', 'я', '字', '7', '٣', '.', '=', '—', '!', ' ', '\n', '\u00a0', '𝒜', '😀', '\ud800'];

/** A seeded text of runs of one character class, some longer than the limit. */
function randomText(seed: number): string {
  let state = seed;
  const next = (limit: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % limit;
  };
  let text = '';
  while (text.length < 3000) {
    const length = next(4) === 0 ? MAX_UNBROKEN_RUN_CHARS - 2 + next(6) : 1 + next(12);
    const choices = [ALPHABET[next(ALPHABET.length)] as string, ALPHABET[next(ALPHABET.length)] as string];
    for (let i = 0; i < length; i++) text += choices[next(2)];
  }
  return text;
}

describe('counting long runs in pieces', () => {
  it('cuts every text where the earlier pattern search cut it', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const text = randomText(seed);
      expect(pieces(text), `seed ${seed}`).toEqual(referencePieces(text));
    }
  });

  it('cuts runs of exactly the limit, one more, marks and astral letters alike', () => {
    const limit = MAX_UNBROKEN_RUN_CHARS;
    for (const text of [
      'a'.repeat(limit),
      'a'.repeat(limit + 1),
      `x ${'='.repeat(limit + 1)} y`,
      '\u0301'.repeat(limit + 5),
      `${'!'.repeat(3)}${'\u0301'.repeat(limit + 5)}`,
      `${'\u0301'.repeat(3)}${'!'.repeat(limit + 5)}`,
      '𝒜'.repeat(limit + 1),
      `${'a'.repeat(limit - 1)}${'𝒜'.repeat(200)}`,
      'The quick brown fox.\n'.repeat(50),
    ]) {
      expect(pieces(text)).toEqual(referencePieces(text));
    }
  });
});
