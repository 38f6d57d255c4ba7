import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokensInSteps, createTokenCounter } from '../../../../src/core/tokens';

function runToEnd(steps: Generator<number, number>): { total: number; fractions: number[] } {
  const fractions: number[] = [];
  for (;;) {
    const step = steps.next();
    if (step.done) return { total: step.value, fractions };
    fractions.push(step.value);
  }
}

const piece = fc.constantFrom(
  'word',
  ' ',
  '  ',
  '\n',
  '\n\n',
  ' \n',
  '\t',
  'Café',
  '東京',
  '123',
  '4567',
  ',',
  '.',
  "'s",
  "'t",
  ' -- ',
  '/',
  '<|endoftext|>',
  '🚲',
  'x'.repeat(140),
  '='.repeat(130),
  'Über',
  '\r\n',
);

describe('countTokensInSteps', () => {
  it('counts exactly what one count of the whole text gives, in both encodings', async () => {
    const tokens = await createTokenCounter(['o200k_base', 'cl100k_base']);
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 80 }),
        fc.integer({ min: 1, max: 40 }),
        (parts, stepChars) => {
          const text = parts.join('');
          for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
            const count = (slice: string) => tokens.count(slice, encoding);
            expect(runToEnd(countTokensInSteps(text, count, stepChars)).total).toBe(count(text));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('pauses between pieces with a growing share of the text', async () => {
    const tokens = await createTokenCounter();
    const text = Array.from({ length: 2000 }, (_, i) => `Line ${i} of the log says hello`).join(
      '\n',
    );
    const { fractions } = runToEnd(countTokensInSteps(text, (slice) => tokens.count(slice), 4096));
    expect(fractions.length).toBeGreaterThan(10);
    expect([...fractions].sort((a, b) => a - b)).toEqual(fractions);
    expect(fractions.every((fraction) => fraction > 0 && fraction < 1)).toBe(true);
  });
});
