import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createVectorIndex, listRowIds, normalizeVector, restoreVectorIndex, type VectorEntry } from '../../../../src/core/rag';
import { vectorCorpus } from './vector-corpus';

/**
 * The WebAssembly SIMD scan against the JavaScript loop it replaces. Dimensions run from 1 to 70,
 * so most are not a multiple of the kernels' steps (16 floats, 32 bytes) nor of 4, and rows are
 * packed: a step reads into the next row (times a zero in the padded query).
 */
const corpus = vectorCorpus({ maxDimensions: 70, maxRows: 60 });

const toEntries = (rows: readonly Float32Array[]): VectorEntry[] =>
  rows.map((vector, i) => ({ id: `r${i}`, vector }));

/** Σ |row_i × query_i| over the unit vectors: the scale a dot product's rounding is relative to. */
function productScale(row: Float32Array, query: Float32Array): number {
  const unitRow = normalizeVector(row);
  const unitQuery = normalizeVector(query);
  let sum = 0;
  unitRow.forEach((value, i) => (sum += Math.abs(value * (unitQuery[i] as number))));
  return sum;
}

const FLOAT32_RELATIVE = 1e-5;
/**
 * Below float32's smallest normal number (about 1.2e-38) products lose relative precision in
 * any float32 arithmetic, so differences that small count as equal.
 */
const FLOAT32_SMALLEST_NORMAL = 2 ** -126;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createVectorIndex with the WebAssembly SIMD kernel', () => {
  it('scores float32 rows as the JavaScript loop does, within 1e-5 relative', () => {
    fc.assert(
      fc.property(corpus, ({ rows, query }) => {
        const simd = createVectorIndex(toEntries(rows));
        const js = createVectorIndex(toEntries(rows), { useSimd: false });
        expect(simd.scan).toBe('wasm-simd');
        expect(js.scan).toBe('js');
        const expected = new Map(js.search(query, rows.length).map((hit) => [hit.id, hit.score]));
        const actual = simd.search(query, rows.length);
        expect(actual).toHaveLength(rows.length);
        for (const hit of actual) {
          const row = rows[Number(hit.id.slice(1))] as Float32Array;
          const tolerance = Math.max(
            FLOAT32_RELATIVE * productScale(row, query),
            FLOAT32_SMALLEST_NORMAL,
          );
          expect(Math.abs(hit.score - (expected.get(hit.id) ?? Number.NaN))).toBeLessThanOrEqual(
            tolerance,
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it('selects the top k the JavaScript loop selects, ties within rounding aside', () => {
    fc.assert(
      fc.property(
        corpus,
        fc.integer({ min: 1, max: 20 }),
        fc.boolean(),
        ({ rows, query }, limit, isInt8) => {
          const simd = createVectorIndex(toEntries(rows), { isInt8 });
          const js = createVectorIndex(toEntries(rows), { isInt8, useSimd: false });
          const everyJsScore = js.search(query, rows.length);
          const expected = everyJsScore.slice(0, limit);
          const actual = simd.search(query, limit);
          expect(actual.map((hit) => hit.id).length).toBe(expected.length);
          // int8 also rounds the query to int16 in the kernel (the JS loop keeps it in float64).
          const tolerance = isInt8 ? 5e-4 : 2e-5;
          actual.forEach((hit, rank) => {
            expect(Math.abs(hit.score - (expected[rank]?.score ?? Number.NaN))).toBeLessThanOrEqual(
              tolerance,
            );
          });
          // A row clearly above the first one left out is selected by both.
          const firstLeftOut = everyJsScore[limit]?.score ?? Number.NEGATIVE_INFINITY;
          const selected = new Set(actual.map((hit) => hit.id));
          for (const hit of expected) {
            if (hit.score > firstLeftOut + 2 * tolerance) expect(selected).toContain(hit.id);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('scores int8 rows as the JavaScript loop does, within the rounding of the int16 query', () => {
    fc.assert(
      fc.property(corpus, ({ rows, query }) => {
        const simd = createVectorIndex(toEntries(rows), { isInt8: true });
        const js = createVectorIndex(toEntries(rows), { isInt8: true, useSimd: false });
        expect(simd.scan).toBe('wasm-simd');
        expect(simd.matrixBytes).toBe(js.matrixBytes);
        const expected = new Map(js.search(query, rows.length).map((hit) => [hit.id, hit.score]));
        for (const hit of simd.search(query, rows.length)) {
          expect(Math.abs(hit.score - (expected.get(hit.id) ?? Number.NaN))).toBeLessThan(5e-4);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('never selects a row with an infinity or a NaN and leaves the rows beside it as they were', () => {
    // 5 dimensions: each kernel step reads on into the following rows.
    const rows = [
      Float32Array.from([1, 0, 0, 0, 0]),
      Float32Array.from([Number.POSITIVE_INFINITY, 1, 0, 0, 0]),
      Float32Array.from([0.9, 0.1, 0, 0, 0]),
      Float32Array.from([0, 1, 0, 0, 0]),
      Float32Array.from([0, 0, Number.NaN, 0, 0]),
      Float32Array.from([0, 0, 0, 0, 0]),
    ];
    const query = Float32Array.from([1, 0.2, 0, 0, 0]);
    for (const isInt8 of [false, true]) {
      const simd = createVectorIndex(toEntries(rows), { isInt8 });
      const js = createVectorIndex(toEntries(rows), { isInt8, useSimd: false });
      expect(simd.scan).toBe('wasm-simd');
      const hits = simd.search(query, 6);
      // The zero row matches nothing: it scores 0, below every row that points the query's way.
      expect(hits.map((hit) => hit.id)).toEqual(['r2', 'r0', 'r3', 'r5']);
      expect(hits.at(-1)?.score).toBe(0);
      expect(hits.map((hit) => hit.id)).toEqual(js.search(query, 6).map((hit) => hit.id));
    }
  });

  it('falls back to the JavaScript loop where WebAssembly SIMD does not validate', () => {
    const validate = vi.spyOn(WebAssembly, 'validate').mockReturnValue(false);
    const rows = [Float32Array.from([1, 0, 0]), Float32Array.from([0.6, 0.8, 0])];
    for (const isInt8 of [false, true]) {
      const index = createVectorIndex(toEntries(rows), { isInt8 });
      expect(index.scan).toBe('js');
      expect(index.search(Float32Array.from([0, 1, 0]), 2).map((hit) => hit.id)).toEqual([
        'r1',
        'r0',
      ]);
    }
    expect(validate).toHaveBeenCalled();
  });

  it('falls back to the JavaScript loop when wasm memory for the matrix cannot be had', () => {
    vi.spyOn(WebAssembly, 'Memory').mockImplementation(function refuse(): WebAssembly.Memory {
      throw new RangeError('WebAssembly.Memory(): could not allocate memory');
    });
    const index = createVectorIndex(
      toEntries([Float32Array.from([1, 0]), Float32Array.from([0, 1])]),
    );
    expect(index.scan).toBe('js');
    expect(index.search(Float32Array.from([0, 1]), 1).map((hit) => hit.id)).toEqual(['r1']);
  });

  describe('an index restored from its stored state', () => {
    it('ranks its stored rows with the JavaScript loop until prepareScan, then as the kernel did before it was stored', () => {
      fc.assert(
        fc.property(corpus, fc.boolean(), ({ rows, query }, isInt8) => {
          const original = createVectorIndex(toEntries(rows), { isInt8 });
          const loop = createVectorIndex(toEntries(rows), { isInt8, useSimd: false });
          const { ids, state } = original.exportState();
          const restored = restoreVectorIndex(listRowIds(ids), structuredClone(state));
          // Before: the loop's own ranking and scores, over the rows as they were read.
          expect(restored.scan).toBe('js');
          expect(restored.search(query, rows.length)).toEqual(loop.search(query, rows.length));
          restored.prepareScan();
          restored.prepareScan();
          expect(restored.scan).toBe('wasm-simd');
          expect(restored.matrixBytes).toBe(original.matrixBytes);
          expect(restored.search(query, rows.length)).toEqual(original.search(query, rows.length));
        }),
        { numRuns: 150 },
      );
    });

    it('never selects a row with an infinity or a NaN, before and after prepareScan', () => {
      const rows = [
        Float32Array.from([1, 0, 0, 0, 0]),
        Float32Array.from([Number.POSITIVE_INFINITY, 1, 0, 0, 0]),
        Float32Array.from([0.9, 0.1, 0, 0, 0]),
        Float32Array.from([0, 0, Number.NaN, 0, 0]),
      ];
      const query = Float32Array.from([1, 0.2, 0, 0, 0]);
      for (const isInt8 of [false, true]) {
        const { ids, state } = createVectorIndex(toEntries(rows), { isInt8 }).exportState();
        // Whatever a stored row of a listed vector holds, it is not scored.
        state.values.fill(1, 5, 10);
        const restored = restoreVectorIndex(listRowIds(ids), state);
        expect(restored.search(query, 4).map((hit) => hit.id)).toEqual(['r2', 'r0']);
        restored.prepareScan();
        expect(restored.search(query, 4).map((hit) => hit.id)).toEqual(['r2', 'r0']);
      }
    });

    it('stays with the loop where the kernel cannot be had', () => {
      const { ids, state } = createVectorIndex(toEntries([Float32Array.from([1, 0]), Float32Array.from([0, 1])])).exportState();
      const restored = restoreVectorIndex(listRowIds(ids), state);
      vi.spyOn(WebAssembly, 'validate').mockReturnValue(false);
      restored.prepareScan();
      expect(restored.scan).toBe('js');
      expect(restored.search(Float32Array.from([0, 1]), 1).map((hit) => hit.id)).toEqual(['r1']);
    });
  });
});
