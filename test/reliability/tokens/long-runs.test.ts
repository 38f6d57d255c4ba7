import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { createTokenCounter } from '../../../src/core/tokens';
import { countInBoundedRuns, MAX_UNBROKEN_RUN_CHARS } from '../../../src/core/tokens/encoding';

/** Found by the malformed-stream corpus: a 10 MB token froze the agent while it counted tokens. */
describe('token counting of long unbroken runs', () => {
  it('counts a megabyte of letters without a space in seconds, not hours', async () => {
    const counter = await createTokenCounter();
    const count = counter.count('y'.repeat(1_000_000));
    expect(count).toBeGreaterThan(1_000_000 / 8);
  }, 15_000);

  it('counts a long run of punctuation in pieces too', async () => {
    const counter = await createTokenCounter();
    expect(counter.count('='.repeat(500_000))).toBeGreaterThan(0);
  }, 15_000);

  it('leaves ordinary text exactly as the tokenizer counts it', async () => {
    const counter = await createTokenCounter();
    const text = 'The quick brown fox jumps over the lazy dog. https://example.com/a/b?c=d — ünïcödé 😀 text.\n'.repeat(40);
    expect(counter.count(text)).toBe(countTokens(text));
  });

  it('over-counts a long run by a few per cent at most', () => {
    const letters = Array.from({ length: 20_000 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join('');
    const exact = countTokens(letters);
    const bounded = countInBoundedRuns(letters, (piece) => countTokens(piece));
    expect(bounded).toBeGreaterThanOrEqual(exact);
    expect(bounded / exact).toBeLessThan(1.05);
  }, 30_000);

  it('never splits a surrogate pair when it cuts a run', () => {
    const run = 'a'.repeat(MAX_UNBROKEN_RUN_CHARS - 1) + '𝒜'.repeat(200);
    const pieces: string[] = [];
    countInBoundedRuns(run, (piece) => {
      pieces.push(piece);
      return 0;
    });
    expect(pieces.join('')).toBe(run);
    for (const piece of pieces) expect(piece).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
  });
});

describe('token counting of very long runs', () => {
  it('counts a 10 MB run without overflowing the stack', async () => {
    const counter = await createTokenCounter();
    expect(counter.count(`start ${'y'.repeat(10 * 1024 * 1024)} end`)).toBeGreaterThan(1_000_000);
  }, 30_000);
});
