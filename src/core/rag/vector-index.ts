/**
 * Cosine similarity as a dot product over unit vectors kept in one Float32Array matrix (row i
 * is chunk i), so a query is a single pass over contiguous memory.
 */
import type { RankedId } from './bm25-index';

export interface VectorEntry {
  id: string;
  vector: Float32Array;
}

export interface VectorIndex {
  readonly size: number;
  readonly dimensions: number;
  /** The ids of the closest rows, best first. */
  search(query: Float32Array, limit: number): RankedId[];
}

/** A unit-length copy; a zero vector stays zero (it matches nothing). */
export function normalizeVector(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  const unit = new Float32Array(vector.length);
  if (norm === 0) return unit;
  for (let i = 0; i < vector.length; i++) unit[i] = (vector[i] as number) / norm;
  return unit;
}

export interface VectorIndexOptions {
  /**
   * Keeps rows as 8-bit integers with one scale per row: a quarter of the memory for large
   * projects, at a small cost in precision (rankings rarely change; see the tests).
   */
  isInt8?: boolean;
}

const INT8_MAX = 127;

/** Unit rows quantized to [-127, 127], with the factor that maps them back. */
function quantizeRows(
  rows: Float32Array,
  dimensions: number,
): { values: Int8Array; scales: Float32Array } {
  const count = dimensions === 0 ? 0 : rows.length / dimensions;
  const values = new Int8Array(rows.length);
  const scales = new Float32Array(count);
  for (let row = 0; row < count; row++) {
    let largest = 0;
    for (let i = 0; i < dimensions; i++)
      largest = Math.max(largest, Math.abs(rows[row * dimensions + i] as number));
    const scale = largest === 0 ? 0 : largest / INT8_MAX;
    scales[row] = scale;
    for (let i = 0; i < dimensions; i++) {
      values[row * dimensions + i] =
        scale === 0 ? 0 : Math.round((rows[row * dimensions + i] as number) / scale);
    }
  }
  return { values, scales };
}

export function createVectorIndex(
  entries: readonly VectorEntry[],
  options: VectorIndexOptions = {},
): VectorIndex {
  const dimensions = entries[0]?.vector.length ?? 0;
  const usable = entries.filter((entry) => entry.vector.length === dimensions);
  const floats = new Float32Array(usable.length * dimensions);
  usable.forEach((entry, row) => floats.set(normalizeVector(entry.vector), row * dimensions));
  const quantized = options.isInt8 === true ? quantizeRows(floats, dimensions) : null;
  const ids = usable.map((entry) => entry.id);
  return {
    size: usable.length,
    dimensions,
    search(query, limit) {
      if (query.length !== dimensions || ids.length === 0) return [];
      const unit = normalizeVector(query);
      const scores = new Float32Array(ids.length);
      // One monomorphic loop per storage type: mixing Float32Array and Int8Array reads in one
      // loop kept V8 from optimising it (test/bench/RESULTS.md).
      if (quantized === null) scoreFloatRows(floats, unit, dimensions, scores);
      else scoreInt8Rows(quantized.values, quantized.scales, unit, dimensions, scores);
      return selectTop(scores, ids, limit);
    },
  };
}

function scoreFloatRows(matrix: Float32Array, unit: Float32Array, dimensions: number, scores: Float32Array): void {
  for (let row = 0, offset = 0; row < scores.length; row++, offset += dimensions) {
    let dot = 0;
    for (let i = 0; i < dimensions; i++) dot += (matrix[offset + i] as number) * (unit[i] as number);
    scores[row] = dot;
  }
}

function scoreInt8Rows(
  matrix: Int8Array,
  rowScales: Float32Array,
  unit: Float32Array,
  dimensions: number,
  scores: Float32Array,
): void {
  for (let row = 0, offset = 0; row < scores.length; row++, offset += dimensions) {
    let dot = 0;
    for (let i = 0; i < dimensions; i++) dot += (matrix[offset + i] as number) * (unit[i] as number);
    scores[row] = dot * (rowScales[row] as number);
  }
}

/**
 * The best `limit` rows, best first, without sorting every row: a kept list of at most `limit`
 * entries, each new score placed by binary search only when it beats the worst kept.
 */
function selectTop(scores: Float32Array, ids: readonly string[], limit: number): RankedId[] {
  const keep = Math.min(limit, scores.length);
  if (keep <= 0) return [];
  const topRows: number[] = [];
  const topScores: number[] = [];
  for (let row = 0; row < scores.length; row++) {
    const score = scores[row] as number;
    if (topRows.length === keep && score <= (topScores[keep - 1] as number)) continue;
    let low = 0;
    let high = topScores.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((topScores[middle] as number) >= score) low = middle + 1;
      else high = middle;
    }
    topScores.splice(low, 0, score);
    topRows.splice(low, 0, row);
    if (topRows.length > keep) {
      topScores.pop();
      topRows.pop();
    }
  }
  return topRows.map((row, index) => ({ id: ids[row] as string, score: topScores[index] as number }));
}
