import { describe, expect, it } from 'vitest';
import { ESTIMATED_ROW_HEIGHT, computeOffsets, findVisibleRange, isNearBottom } from '../../../src/app/lib/virtual-list';

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
