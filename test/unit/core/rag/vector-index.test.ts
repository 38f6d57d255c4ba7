import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createVectorIndex } from '../../../../src/core/rag';
import { vectorCorpus } from './vector-corpus';

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  a.forEach((value, i) => {
    dot += value * (b[i] as number);
    normA += value * value;
    normB += (b[i] as number) ** 2;
  });
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

/** Dimensions on both sides of the eight-wide unrolled loop, including a tail. */
const corpus = vectorCorpus({ maxDimensions: 21, maxRows: 120 });

describe('createVectorIndex', () => {
  it('returns the rows a full sort by cosine similarity returns, with their scores', () => {
    fc.assert(
      fc.property(corpus, fc.integer({ min: 1, max: 30 }), ({ rows, query }, limit) => {
        const index = createVectorIndex(rows.map((vector, i) => ({ id: `r${i}`, vector })));
        const expected = rows
          .map((vector, i) => ({ id: `r${i}`, score: cosine(vector, query) }))
          .sort((a, b) => b.score - a.score);
        const actual = index.search(query, limit);
        expect(actual).toHaveLength(Math.min(limit, rows.length));
        actual.forEach((hit, rank) => {
          // Rank by rank the same score (ids may swap only where scores tie within rounding).
          expect(hit.score).toBeCloseTo(expected[rank]?.score ?? Number.NaN, 4);
          expect(hit.score).toBeCloseTo(
            cosine(rows[Number(hit.id.slice(1))] as Float32Array, query),
            4,
          );
        });
      }),
      { numRuns: 300 },
    );
  });

  it('keeps 8-bit rows in a quarter of the memory and scores them within rounding of float32', () => {
    fc.assert(
      fc.property(corpus, ({ rows, query }) => {
        const entries = rows.map((vector, i) => ({ id: `r${i}`, vector }));
        const exact = createVectorIndex(entries);
        const int8 = createVectorIndex(entries, { isInt8: true });
        const exactScore = new Map(
          exact.search(query, rows.length).map((hit) => [hit.id, hit.score]),
        );
        for (const hit of int8.search(query, rows.length)) {
          expect(Math.abs(hit.score - (exactScore.get(hit.id) ?? Number.NaN))).toBeLessThan(0.05);
        }
        expect(int8.matrixBytes).toBe(rows.length * (exact.dimensions + 4));
        expect(exact.matrixBytes).toBe(rows.length * exact.dimensions * 4);
      }),
      { numRuns: 200 },
    );
  });

  it('leaves out rows whose length differs from the first and answers a query of another length with nothing', () => {
    const index = createVectorIndex([
      { id: 'a', vector: Float32Array.from([1, 0, 0]) },
      { id: 'short', vector: Float32Array.from([1, 0]) },
      { id: 'b', vector: Float32Array.from([0, 1, 0]) },
    ]);
    expect(index.size).toBe(2);
    expect(index.search(Float32Array.from([0, 1, 0]), 5).map((hit) => hit.id)).toEqual(['b', 'a']);
    expect(index.search(Float32Array.from([0, 1]), 5)).toEqual([]);
  });
});
