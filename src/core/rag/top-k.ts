/**
 * Bounded top-k selection over a score array: a min-heap of at most `limit` rows, so a scan of
 * n rows costs O(n) comparisons against the current threshold and O(log limit) per row that
 * beats it, with no object per row and no sort of the whole array.
 *
 * The order is the one a stable sort by descending score gives: higher score first, and on
 * equal scores the lower row first. NaN scores are never selected.
 */

/** Rows `[0, scores.length)`, or only the `candidates` rows when given. */
export function selectTopRows(
  scores: ArrayLike<number>,
  limit: number,
  candidates?: ArrayLike<number>,
): Int32Array {
  const capacity = Math.max(
    0,
    Math.min(Math.floor(limit), candidates === undefined ? scores.length : candidates.length),
  );
  if (capacity === 0) return new Int32Array(0);
  const heap = createRowHeap(capacity);
  if (candidates === undefined) {
    for (let row = 0; row < scores.length; row++) heap.offer(row, scores[row] as number);
  } else {
    for (let index = 0; index < candidates.length; index++) {
      const row = candidates[index] as number;
      heap.offer(row, scores[row] as number);
    }
  }
  return heap.drainBestFirst();
}

interface RowHeap {
  offer(row: number, score: number): void;
  drainBestFirst(): Int32Array;
}

/** The heap's root is the worst kept row; `isWorse` is the one ordering everything uses. */
function createRowHeap(capacity: number): RowHeap {
  const rows = new Int32Array(capacity);
  const scores = new Float64Array(capacity);
  let size = 0;

  const isWorse = (scoreA: number, rowA: number, scoreB: number, rowB: number): boolean =>
    scoreA < scoreB || (scoreA === scoreB && rowA > rowB);

  function siftDown(from: number, end: number): void {
    const row = rows[from] as number;
    const score = scores[from] as number;
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= end) break;
      const right = left + 1;
      let child = left;
      if (
        right < end &&
        isWorse(
          scores[right] as number,
          rows[right] as number,
          scores[left] as number,
          rows[left] as number,
        )
      ) {
        child = right;
      }
      if (!isWorse(scores[child] as number, rows[child] as number, score, row)) break;
      rows[at] = rows[child] as number;
      scores[at] = scores[child] as number;
      at = child;
    }
    rows[at] = row;
    scores[at] = score;
  }

  function siftUp(from: number): void {
    const row = rows[from] as number;
    const score = scores[from] as number;
    let at = from;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!isWorse(score, row, scores[parent] as number, rows[parent] as number)) break;
      rows[at] = rows[parent] as number;
      scores[at] = scores[parent] as number;
      at = parent;
    }
    rows[at] = row;
    scores[at] = score;
  }

  return {
    offer(row, score) {
      if (Number.isNaN(score)) return;
      if (size < capacity) {
        rows[size] = row;
        scores[size] = score;
        siftUp(size);
        size++;
        return;
      }
      // The common case in a long scan: not better than the worst kept row.
      if (!isWorse(scores[0] as number, rows[0] as number, score, row)) return;
      rows[0] = row;
      scores[0] = score;
      siftDown(0, size);
    },
    drainBestFirst() {
      // Heap sort in place: each step moves the worst remaining row to the end.
      for (let end = size - 1; end > 0; end--) {
        const row = rows[0] as number;
        const score = scores[0] as number;
        rows[0] = rows[end] as number;
        scores[0] = scores[end] as number;
        rows[end] = row;
        scores[end] = score;
        siftDown(0, end);
      }
      return rows.slice(0, size);
    },
  };
}
