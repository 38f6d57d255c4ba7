/**
 * The arithmetic of the virtualized message list: where each row starts, and which rows are near
 * the viewport. Heights are measured once a row is rendered; rows never rendered use an estimate.
 */

/** Height assumed for a row that has not been measured yet. */
export const ESTIMATED_ROW_HEIGHT = 120;
/** Rows this far (px) above and below the viewport stay rendered, so fast scrolls show no gaps. */
export const OVERSCAN_PX = 900;

/** offsets[i] is the top of row i; offsets[n] is the total height. */
export function computeOffsets(heights: readonly number[]): number[] {
  const offsets = new Array<number>(heights.length + 1);
  offsets[0] = 0;
  let top = 0;
  for (let i = 0; i < heights.length; i++) {
    top += heights[i] ?? ESTIMATED_ROW_HEIGHT;
    offsets[i + 1] = top;
  }
  return offsets;
}

/** The last row whose top is at or above `y` (binary search over the offsets). */
function findRowAt(offsets: readonly number[], y: number): number {
  let low = 0;
  let high = offsets.length - 2;
  if (high < 0) return 0;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((offsets[middle] ?? 0) <= y) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Rows [start, end) to render for this scroll position. */
export function findVisibleRange(
  offsets: readonly number[],
  scrollTop: number,
  viewportHeight: number,
  overscanPx: number = OVERSCAN_PX,
): { start: number; end: number } {
  const count = offsets.length - 1;
  if (count <= 0) return { start: 0, end: 0 };
  const start = findRowAt(offsets, Math.max(0, scrollTop - overscanPx));
  const end = Math.min(count, findRowAt(offsets, scrollTop + viewportHeight + overscanPx) + 1);
  return { start, end };
}

/** Within this distance (px) of the bottom, the list follows new content (a streaming answer). */
export const STICK_TO_BOTTOM_PX = 48;

export function isNearBottom(scrollTop: number, scrollHeight: number, viewportHeight: number): boolean {
  return scrollHeight - scrollTop - viewportHeight <= STICK_TO_BOTTOM_PX;
}
