import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FOLLOW_UPS_MARKER,
  isOnlyDisplayArtifacts,
  removeDisplayArtifacts,
} from '../../../../src/core/context/remove-from-text';
import {
  COUNT_MEMO_MAX_TEXT_CHARS,
  createCountMemo,
  createTokenMeter,
} from '../../../../src/core/context/token-meter';
import type { TokenCounter, TokenEncodingName } from '../../../../src/core/ports';

/** Counts words and remembers every text it was asked to count. */
function createWordCounter(): TokenCounter & { calls: Array<[string, TokenEncodingName]> } {
  const calls: Array<[string, TokenEncodingName]> = [];
  return {
    calls,
    count(text, encoding = 'default') {
      calls.push([text, encoding]);
      return text.split(/\s+/).filter(Boolean).length;
    },
  };
}

describe('token meter', () => {
  it('counts a text again only when it has not been counted with that counter and encoding', () => {
    const counter = createWordCounter();
    const first = createTokenMeter(counter, 'o200k_base');
    expect(first.countText('one two three')).toBe(3);
    expect(first.countText('one two three')).toBe(3);
    // A later request with the same counter: the memo outlives the request.
    const second = createTokenMeter(counter, 'o200k_base');
    expect(second.countText('one two three')).toBe(3);
    const otherEncoding = createTokenMeter(counter, 'cl100k_base');
    expect(otherEncoding.countText('one two three')).toBe(3);
    expect(counter.calls).toEqual([
      ['one two three', 'o200k_base'],
      ['one two three', 'cl100k_base'],
    ]);
    // Another counter (another worker, another vocabulary) starts empty.
    const fresh = createWordCounter();
    createTokenMeter(fresh, 'o200k_base').countText('one two three');
    expect(fresh.calls).toHaveLength(1);
  });

  it('counts a very long text every request rather than keep it', () => {
    const counter = createWordCounter();
    const long = 'word '.repeat(COUNT_MEMO_MAX_TEXT_CHARS / 5 + 1);
    createTokenMeter(counter, 'o200k_base').countText(long);
    createTokenMeter(counter, 'o200k_base').countText(long);
    expect(counter.calls).toHaveLength(2);
  });

  it('prices a message with the overhead and the calibration factor, rounding up', () => {
    const counter = createWordCounter();
    expect(createTokenMeter(counter, 'o200k_base').priceMessage(10)).toBe(14);
    expect(createTokenMeter(counter, 'o200k_base', 1.25).priceMessage(10)).toBe(18);
  });
});

describe('count memo', () => {
  it('lets the least recently used texts go once the keys exceed the limit', () => {
    const memo = createCountMemo(10);
    memo.set('aaaa', 1);
    memo.set('bbbb', 2);
    expect(memo.get('aaaa')).toBe(1); // now the most recent
    memo.set('cccc', 3); // 12 characters: the oldest, "bbbb", goes
    expect(memo.get('bbbb')).toBeUndefined();
    expect(memo.get('aaaa')).toBe(1);
    expect(memo.get('cccc')).toBe(3);
    expect(memo.size).toBe(2);
  });

  it('never holds more characters than its limit, and what it holds is right', () => {
    const countOf = (text: string): number => text.length * 7 + 1;
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 80 }), (texts) => {
        const memo = createCountMemo(40);
        for (const text of texts) if (memo.get(text) === undefined) memo.set(text, countOf(text));
        let chars = 0;
        for (const text of new Set(texts)) {
          const remembered = memo.get(text);
          if (remembered === undefined) continue;
          expect(remembered).toBe(countOf(text));
          chars += text.length;
        }
        expect(chars).toBeLessThanOrEqual(40);
        // The newest text always stays (unless it alone is over the limit).
        const newest = texts.at(-1);
        if (newest !== undefined) expect(memo.get(newest)).toBe(countOf(newest));
      }),
    );
  });
});

describe('isOnlyDisplayArtifacts', () => {
  const fragment = fc.constantFrom(
    ' ',
    '\n',
    '\t',
    '\u00a0',
    '\u2028',
    '\ufeff',
    FOLLOW_UPS_MARKER,
    '<!-- follow',
    '[[1]](https://a.example/x)',
    '[2](https://b.example)',
    '[3]',
    'word',
    '-',
  );

  it('answers exactly whether removing the display artifacts leaves nothing', () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 8 }), (parts) => {
        const text = parts.join('');
        expect(isOnlyDisplayArtifacts(text)).toBe(removeDisplayArtifacts(text).length === 0);
      }),
      { numRuns: 2000 },
    );
  });
});
