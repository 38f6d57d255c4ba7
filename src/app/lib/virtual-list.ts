/**
 * The arithmetic of the virtualized message list: where each row starts, and which rows are near
 * the viewport. Heights are measured once a row is rendered; rows never rendered use an estimate.
 */

import { findGrownFrom } from '../../util/grown-from';

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

/**
 * The rows of a virtual list, by key, with their heights (measured, else estimated) and tops.
 * Built for lists that change at their ends: rows added in front (older messages) or behind (a
 * new turn) cost their own heights plus one addition per row already there, with no lookup by
 * key; any other change sets the rows from the first one that differs. A measured height moves
 * the tops below it, added up once when the tops are next read.
 */
export class RowLayout {
  private keys: readonly string[] = [];
  private heights: number[] = [];
  private tops: number[] = [0];
  /** Rows from here down have stale tops. */
  private staleFrom = Number.POSITIVE_INFINITY;
  /** Measured heights by key, kept for rows that leave the list and come back. */
  private readonly measured = new Map<string, number>();
  /** A row's index is its position minus the first row's: rows added in front take lower positions. */
  private readonly positions = new Map<string, number>();
  private firstPosition = 0;

  get count(): number {
    return this.keys.length;
  }

  /** offsets[i] is the top of row i; offsets[count] is the total height. */
  get offsets(): readonly number[] {
    for (let index = this.staleFrom - 1; index < this.keys.length; index++) {
      this.tops[index + 1] = (this.tops[index] ?? 0) + (this.heights[index] ?? ESTIMATED_ROW_HEIGHT);
    }
    this.staleFrom = Number.POSITIVE_INFINITY;
    return this.tops;
  }

  /** The index of the row with `key`, or -1. */
  indexOf(key: string): number {
    const position = this.positions.get(key);
    if (position === undefined) return -1;
    const index = position - this.firstPosition;
    return this.keys[index] === key ? index : -1;
  }

  /** The measured height of the row with `key`, if it was measured. */
  measuredHeight(key: string): number | undefined {
    return this.measured.get(key);
  }

  /** Sets the rows, in order; keys must be unique. */
  setKeys(keys: readonly string[]): void {
    if (keys === this.keys) return;
    const start = findGrownFrom(this.keys, keys);
    if (start < 0) this.replaceAfterCommonStart(keys);
    else if (start > 0 || keys.length > this.keys.length) this.grow(keys, start);
    else this.keys = keys;
  }

  /** `keys` is the rows there with `start` rows added in front and perhaps some behind. */
  private grow(keys: readonly string[], start: number): void {
    const end = start + this.keys.length;
    const before = this.heightsOf(keys, 0, start);
    const after = this.heightsOf(keys, end, keys.length);
    this.firstPosition -= start;
    for (let index = 0; index < start; index++) this.positions.set(keys[index] as string, this.firstPosition + index);
    for (let index = end; index < keys.length; index++) this.positions.set(keys[index] as string, this.firstPosition + index);
    // The rows already there move down by the height added in front; the rows behind are added
    // up when the tops are next read.
    const oldTops = this.offsets;
    const tops = computeOffsets(before);
    const added = tops[start] ?? 0;
    for (let index = 1; index < oldTops.length; index++) tops[start + index] = (oldTops[index] ?? 0) + added;
    this.heights = [...before, ...this.heights, ...after];
    this.tops = tops;
    this.keys = keys;
    this.staleFrom = end + 1;
  }

  /** Any other change (a question answered, a branch switched): the rows from the first that differs are set again. */
  private replaceAfterCommonStart(keys: readonly string[]): void {
    const old = this.keys;
    let same = 0;
    while (same < old.length && same < keys.length && old[same] === keys[same]) same++;
    for (let index = same; index < old.length; index++) this.positions.delete(old[index] as string);
    for (let index = same; index < keys.length; index++) this.positions.set(keys[index] as string, this.firstPosition + index);
    this.heights = [...this.heights.slice(0, same), ...this.heightsOf(keys, same, keys.length)];
    this.tops.length = Math.min(this.tops.length, same + 1);
    this.keys = keys;
    this.staleFrom = Math.min(this.staleFrom, same + 1);
  }

  /**
   * Records the measured height of the row with `key`; returns its index and previous height,
   * or null when the row is not in the list or its height did not change.
   */
  setHeight(key: string, height: number): { index: number; previous: number | undefined } | null {
    const previous = this.measured.get(key);
    if (previous === height) return null;
    this.measured.set(key, height);
    const index = this.indexOf(key);
    if (index < 0) return null;
    this.heights[index] = height;
    this.staleFrom = Math.min(this.staleFrom, index + 1);
    return { index, previous };
  }

  private heightsOf(keys: readonly string[], from: number, to: number): number[] {
    const heights: number[] = [];
    for (let index = from; index < to; index++) heights.push(this.measured.get(keys[index] as string) ?? ESTIMATED_ROW_HEIGHT);
    return heights;
  }
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
