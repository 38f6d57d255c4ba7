import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ESTIMATED_ROW_HEIGHT, RowLayout, computeOffsets, findVisibleRange, isNearBottom } from '../../../src/app/lib/virtual-list';

describe('virtual list arithmetic', () => {
  it('stacks row tops from measured heights', () => {
    expect(computeOffsets([10, 20, 30])).toEqual([0, 10, 30, 60]);
  });

  it('renders only rows near the viewport of a long list', () => {
    const offsets = computeOffsets(new Array<number>(1000).fill(100));
    const range = findVisibleRange(offsets, 50_000, 800, 200);
    // Viewport 50,000–50,800 plus 200 px either side: rows 498 to 510.
    expect(range).toEqual({ start: 498, end: 511 });
  });

  it('renders the first rows at the top and the last rows at the bottom', () => {
    const offsets = computeOffsets(new Array<number>(50).fill(ESTIMATED_ROW_HEIGHT));
    expect(findVisibleRange(offsets, 0, 600, 0).start).toBe(0);
    const bottom = (offsets[50] ?? 0) - 600;
    expect(findVisibleRange(offsets, bottom, 600, 0).end).toBe(50);
  });

  it('renders nothing for an empty list', () => {
    expect(findVisibleRange(computeOffsets([]), 0, 600)).toEqual({ start: 0, end: 0 });
  });

  it('counts a position within a few pixels of the end as the bottom', () => {
    expect(isNearBottom(1_000, 1_800, 790)).toBe(true);
    expect(isNearBottom(500, 1_800, 790)).toBe(false);
  });
});

/** What a list of rows goes through: older rows put in front, a turn added, rows measured, any other change. */
type LayoutStep =
  | { kind: 'prepend'; count: number }
  | { kind: 'append'; count: number }
  | { kind: 'measure'; at: number; height: number }
  | { kind: 'cut'; at: number }
  | { kind: 'replaceEnd'; count: number };

const layoutStep: fc.Arbitrary<LayoutStep> = fc.oneof(
  fc.record({ kind: fc.constant('prepend' as const), count: fc.integer({ min: 0, max: 40 }) }),
  fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ kind: fc.constant('measure' as const), at: fc.nat(), height: fc.integer({ min: 1, max: 900 }) }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('replaceEnd' as const), count: fc.integer({ min: 1, max: 3 }) }),
);

describe('RowLayout', () => {
  it('after any run of changes, has the tops and indexes a list built from scratch has', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), fc.array(layoutStep, { maxLength: 30 }), (initial, steps) => {
        let next = 0;
        const newKeys = (count: number): string[] => Array.from({ length: count }, () => `row-${next++}`);
        const measured = new Map<string, number>();
        const layout = new RowLayout();
        let keys = newKeys(initial);
        layout.setKeys(keys);
        for (const step of steps) {
          if (step.kind === 'prepend') keys = [...newKeys(step.count), ...keys];
          else if (step.kind === 'append') keys = [...keys, ...newKeys(step.count)];
          else if (step.kind === 'cut') keys = keys.slice(0, keys.length === 0 ? 0 : step.at % (keys.length + 1));
          else if (step.kind === 'replaceEnd') keys = [...keys.slice(0, -1), ...newKeys(step.count)];
          else {
            const key = keys[step.at % Math.max(1, keys.length)];
            if (key === undefined) continue;
            measured.set(key, step.height);
            layout.setHeight(key, step.height);
            continue;
          }
          layout.setKeys(keys);
        }
        const expected = computeOffsets(keys.map((key) => measured.get(key) ?? ESTIMATED_ROW_HEIGHT));
        expect(layout.offsets).toEqual(expected);
        expect(layout.count).toBe(keys.length);
        keys.forEach((key, index) => expect(layout.indexOf(key)).toBe(index));
      }),
    );
  });

  it('keeps a measured height for a row that leaves the list and comes back', () => {
    const layout = new RowLayout();
    layout.setKeys(['a', 'b', 'c']);
    layout.setHeight('b', 300);
    layout.setKeys(['a']);
    expect(layout.indexOf('b')).toBe(-1);
    layout.setKeys(['a', 'b', 'c']);
    expect(layout.offsets).toEqual([0, ESTIMATED_ROW_HEIGHT, ESTIMATED_ROW_HEIGHT + 300, 2 * ESTIMATED_ROW_HEIGHT + 300]);
  });

  it('reports the previous height of a row measured again, and nothing for an unchanged one', () => {
    const layout = new RowLayout();
    layout.setKeys(['a', 'b']);
    expect(layout.setHeight('b', 200)).toEqual({ index: 1, previous: undefined });
    expect(layout.setHeight('b', 200)).toBeNull();
    expect(layout.setHeight('b', 250)).toEqual({ index: 1, previous: 200 });
    layout.setKeys(['z', 'a', 'b']);
    expect(layout.setHeight('b', 260)).toEqual({ index: 2, previous: 250 });
  });
});
