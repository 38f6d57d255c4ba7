import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { selectTopRows } from '../../../../src/core/rag';

/** What selection must equal: a stable sort of every (non-NaN) row by descending score. */
function naiveTopRows(
  scores: readonly number[],
  limit: number,
  candidates?: readonly number[],
): number[] {
  const rows = candidates ?? scores.map((_, row) => row);
  return rows
    .filter((row) => !Number.isNaN(scores[row]))
    .map((row) => ({ row, score: scores[row] as number }))
    .sort((a, b) => b.score - a.score || a.row - b.row)
    .slice(0, Math.max(0, limit))
    .map((entry) => entry.row);
}

// Few distinct values, so ties are common and the tie order is tested too.
const score = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.double({ min: -1, max: 1, noNaN: true }),
  fc.constant(Number.NaN),
);

describe('selectTopRows', () => {
  it('returns what a full stable sort by descending score returns, for any scores and limit', () => {
    fc.assert(
      fc.property(
        fc.array(score, { maxLength: 300 }),
        fc.integer({ min: -2, max: 80 }),
        (scores, limit) => {
          expect(Array.from(selectTopRows(Float64Array.from(scores), limit))).toEqual(
            naiveTopRows(scores, limit),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('ranks only the candidate rows when given', () => {
    fc.assert(
      fc.property(
        fc.array(score, { minLength: 1, maxLength: 200 }).chain((scores) =>
          fc.tuple(
            fc.constant(scores),
            fc.uniqueArray(fc.integer({ min: 0, max: scores.length - 1 }), {
              maxLength: scores.length,
            }),
            fc.integer({ min: 0, max: 60 }),
          ),
        ),
        ([scores, candidates, limit]) => {
          expect(
            Array.from(
              selectTopRows(Float64Array.from(scores), limit, Int32Array.from(candidates)),
            ),
          ).toEqual(naiveTopRows(scores, limit, candidates));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the earlier row first when scores tie', () => {
    expect(Array.from(selectTopRows([1, 3, 3, 2, 3], 3))).toEqual([1, 2, 4]);
  });
});
