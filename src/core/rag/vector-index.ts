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
  const matrix: Float32Array | Int8Array = quantized?.values ?? floats;
  const rowScale = (row: number) => (quantized === null ? 1 : (quantized.scales[row] as number));
  const ids = usable.map((entry) => entry.id);
  return {
    size: usable.length,
    dimensions,
    search(query, limit) {
      if (query.length !== dimensions || ids.length === 0) return [];
      const unit = normalizeVector(query);
      const scores: RankedId[] = [];
      for (let row = 0; row < ids.length; row++) {
        let dot = 0;
        const offset = row * dimensions;
        for (let i = 0; i < dimensions; i++)
          dot += (matrix[offset + i] as number) * (unit[i] as number);
        scores.push({ id: ids[row] as string, score: dot * rowScale(row) });
      }
      return scores.sort((a, b) => b.score - a.score).slice(0, limit);
    },
  };
}
