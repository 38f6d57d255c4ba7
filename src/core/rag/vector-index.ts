/**
 * Cosine similarity as a dot product over unit vectors kept in one contiguous matrix (row i is
 * entry i), so a query is a single pass over memory with no allocation per row, followed by a
 * bounded top-k selection.
 */
import type { RankedId } from './bm25-index';
import { selectTopRows } from './top-k';

export interface VectorEntry {
  id: string;
  vector: Float32Array;
}

export interface VectorIndex {
  readonly size: number;
  readonly dimensions: number;
  /** Bytes the matrix (and, for 8-bit rows, the per-row scales) holds. */
  readonly matrixBytes: number;
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
   * projects, at a small cost in precision (int8 recall@10 against float32 is about 0.98 in
   * bench 3). It saves memory, not time: V8 has no SIMD, and an Int8Array read costs what a
   * Float32Array read does.
   */
  isInt8?: boolean;
}

const INT8_MAX = 127;

/** A matrix of either element type; the scan loops are written once per type (see below). */
type RowMatrix =
  | { kind: 'float32'; values: Float32Array }
  | { kind: 'int8'; values: Int8Array; scales: Float32Array };

/** Unit rows quantized to [-127, 127], with the factor that maps each row back. */
function quantizeRows(rows: Float32Array, dimensions: number): RowMatrix {
  const count = dimensions === 0 ? 0 : rows.length / dimensions;
  const values = new Int8Array(rows.length);
  const scales = new Float32Array(count);
  for (let row = 0, offset = 0; row < count; row++, offset += dimensions) {
    let largest = 0;
    for (let i = 0; i < dimensions; i++)
      largest = Math.max(largest, Math.abs(rows[offset + i] as number));
    if (largest === 0) continue;
    const scale = largest / INT8_MAX;
    scales[row] = scale;
    for (let i = 0; i < dimensions; i++)
      values[offset + i] = Math.round((rows[offset + i] as number) / scale);
  }
  return { kind: 'int8', values, scales };
}

export function createVectorIndex(
  entries: readonly VectorEntry[],
  options: VectorIndexOptions = {},
): VectorIndex {
  const dimensions = entries[0]?.vector.length ?? 0;
  const usable = entries.filter((entry) => entry.vector.length === dimensions);
  const floats = new Float32Array(usable.length * dimensions);
  usable.forEach((entry, row) => floats.set(normalizeVector(entry.vector), row * dimensions));
  const matrix: RowMatrix =
    options.isInt8 === true
      ? quantizeRows(floats, dimensions)
      : { kind: 'float32', values: floats };
  const ids = usable.map((entry) => entry.id);
  // One buffer of scores and one float64 copy of the query, reused by every search.
  const scores = new Float64Array(ids.length);
  const unitQuery = new Float64Array(dimensions);
  return {
    size: usable.length,
    dimensions,
    matrixBytes:
      matrix.kind === 'float32'
        ? matrix.values.byteLength
        : matrix.values.byteLength + matrix.scales.byteLength,
    search(query, limit) {
      if (query.length !== dimensions || ids.length === 0) return [];
      unitQuery.set(normalizeVector(query));
      if (matrix.kind === 'float32') scoreFloatRows(matrix.values, unitQuery, dimensions, scores);
      else scoreInt8Rows(matrix.values, matrix.scales, unitQuery, dimensions, scores);
      return Array.from(selectTopRows(scores, limit), (row) => ({
        id: ids[row] as string,
        score: scores[row] as number,
      }));
    },
  };
}

/*
 * The two scan loops are deliberately the same text over different array types: a loop that
 * reads both Float32Array and Int8Array rows is polymorphic and V8 does not optimise it well.
 * Eight elements per step into four independent sums lets the CPU overlap the multiply-adds
 * (about twice the speed of the plain loop in bench 3); the tail handles dimensions that are
 * not a multiple of eight.
 */
const UNROLL = 8;

function scoreFloatRows(
  matrix: Float32Array,
  query: Float64Array,
  dimensions: number,
  scores: Float64Array,
): void {
  const unrolledEnd = dimensions - (dimensions % UNROLL);
  for (let row = 0, offset = 0; row < scores.length; row++, offset += dimensions) {
    let a = 0;
    let b = 0;
    let c = 0;
    let d = 0;
    let i = 0;
    for (let j = offset; i < unrolledEnd; i += UNROLL, j += UNROLL) {
      a +=
        (matrix[j] as number) * (query[i] as number) +
        (matrix[j + 4] as number) * (query[i + 4] as number);
      b +=
        (matrix[j + 1] as number) * (query[i + 1] as number) +
        (matrix[j + 5] as number) * (query[i + 5] as number);
      c +=
        (matrix[j + 2] as number) * (query[i + 2] as number) +
        (matrix[j + 6] as number) * (query[i + 6] as number);
      d +=
        (matrix[j + 3] as number) * (query[i + 3] as number) +
        (matrix[j + 7] as number) * (query[i + 7] as number);
    }
    for (; i < dimensions; i++) a += (matrix[offset + i] as number) * (query[i] as number);
    scores[row] = a + b + c + d;
  }
}

function scoreInt8Rows(
  matrix: Int8Array,
  rowScales: Float32Array,
  query: Float64Array,
  dimensions: number,
  scores: Float64Array,
): void {
  const unrolledEnd = dimensions - (dimensions % UNROLL);
  for (let row = 0, offset = 0; row < scores.length; row++, offset += dimensions) {
    let a = 0;
    let b = 0;
    let c = 0;
    let d = 0;
    let i = 0;
    for (let j = offset; i < unrolledEnd; i += UNROLL, j += UNROLL) {
      a +=
        (matrix[j] as number) * (query[i] as number) +
        (matrix[j + 4] as number) * (query[i + 4] as number);
      b +=
        (matrix[j + 1] as number) * (query[i + 1] as number) +
        (matrix[j + 5] as number) * (query[i + 5] as number);
      c +=
        (matrix[j + 2] as number) * (query[i + 2] as number) +
        (matrix[j + 6] as number) * (query[i + 6] as number);
      d +=
        (matrix[j + 3] as number) * (query[i + 3] as number) +
        (matrix[j + 7] as number) * (query[i + 7] as number);
    }
    for (; i < dimensions; i++) a += (matrix[offset + i] as number) * (query[i] as number);
    scores[row] = (a + b + c + d) * (rowScales[row] as number);
  }
}
