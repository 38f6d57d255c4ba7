/**
 * Cosine similarity as a dot product over unit vectors kept in one contiguous matrix (row i is
 * entry i), so a query is a single pass over memory with no allocation per row, followed by a
 * bounded top-k selection. Where WebAssembly SIMD exists the matrix lives in wasm memory and
 * dot-kernel.ts scans it; elsewhere (or with `useSimd: false`) a JavaScript loop does.
 */
import type { RankedId } from './bm25-index';
import { instantiateDotKernel, I8_STEP, F32_STEP, KERNEL_ALIGN, KERNEL_SLACK } from './dot-kernel';
import { selectTopRows } from './top-k';

export interface VectorEntry {
  id: string;
  vector: Float32Array;
}

/** `wasm-simd`: the WebAssembly kernel; `js`: the JavaScript loop (no SIMD available). */
export type VectorScan = 'wasm-simd' | 'js';

export interface VectorIndex {
  readonly size: number;
  readonly dimensions: number;
  /** Bytes the matrix (and, for 8-bit rows, the per-row scales) holds. */
  readonly matrixBytes: number;
  readonly scan: VectorScan;
  /**
   * The ids of the closest rows, best first. Each `row` is the entry's position in the list the
   * index was built from (entries of another length than the first are not rows; restored: the
   * row).
   */
  search(query: Float32Array, limit: number): RankedId[];
  /**
   * Moves the rows into the SIMD kernel's memory if they are not there yet. A restored index
   * first scans its rows where they were read, with the JavaScript loop: copying them means
   * touching fresh memory (about 150 ms for 38 MB of 8-bit rows on a 2-core test machine, where
   * the loop scans them in about 40 ms), which a first answer need not wait for. A no-op for
   * an index built from vectors, and once done.
   */
  prepareScan(): void;
  /**
   * A copy of the rows as scanned and their ids in row order (entries of another length than
   * the first were left out), to store and restore without normalising again.
   */
  exportState(): { ids: readonly string[]; state: VectorIndexState };
}

/** A unit-length copy; a zero vector stays zero (it matches nothing). */
export function normalizeVector(vector: Float32Array): Float32Array {
  const unit = new Float32Array(vector.length);
  writeUnitRow(vector, measureNorm(vector), unit, 0);
  return unit;
}

/** Euclidean length; NaN or infinite exactly when the vector holds a NaN or an infinity. */
function measureNorm(vector: Float32Array): number {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += (vector[i] as number) * (vector[i] as number);
  return Math.sqrt(norm);
}

/**
 * Writes `vector / norm` into `target` at `offset`, or zeros for a zero vector: the index
 * normalises each row straight into its matrix, with no unit copy per row.
 */
function writeUnitRow(
  vector: Float32Array,
  norm: number,
  target: Float32Array,
  offset: number,
): void {
  if (norm === 0) {
    target.fill(0, offset, offset + vector.length);
    return;
  }
  for (let i = 0; i < vector.length; i++) target[offset + i] = (vector[i] as number) / norm;
}

export interface VectorIndexOptions {
  /**
   * Keeps rows as 8-bit integers with one scale per row: a quarter of the memory for large
   * projects, at a small cost in precision (int8 recall@10 against float32 is about 0.98 in
   * bench 3). With the SIMD kernel it is also the fastest scan (a quarter of the bytes to read);
   * in the JavaScript loop an Int8Array read costs what a Float32Array read does.
   */
  isInt8?: boolean;
  /**
   * The WebAssembly SIMD kernel when the engine validates it (the default); false forces the
   * JavaScript loop, which is also the fallback where SIMD or the memory is not available.
   */
  useSimd?: boolean;
}

const INT8_MAX = 127;
const INT16_MAX = 32_767;
const INT32_MAX = 2_147_483_647;

/** Scores every row against a unit query; the result is valid until the next call. */
interface RowScorer {
  readonly scan: VectorScan;
  readonly matrixBytes: number;
  readonly rows: RowMatrix;
  score(unitQuery: Float32Array): ArrayLike<number>;
}

/**
 * The unit rows a scorer scans, `count` rows of `dimensions` values: 8-bit with one scale per
 * row when `scales` is set, float32 otherwise. A row whose vector held a NaN or an infinity is
 * stored as zeros, listed in `nonFinite`, and scored NaN, which is never selected.
 */
interface RowMatrix {
  values: Int8Array | Float32Array;
  scales: Float32Array | null;
  nonFinite: number[];
}

/** Writes the rows into a scorer's matrix (zeroed when it is called). */
type FillRows = (rows: RowMatrix) => void;

/** Quantizes one unit row into `target` at `offset`; returns the factor that maps it back. */
function quantizeRow(row: Float32Array, target: Int8Array, offset: number): number {
  let largest = 0;
  for (let i = 0; i < row.length; i++) largest = Math.max(largest, Math.abs(row[i] as number));
  if (largest === 0) return 0;
  const scale = largest / INT8_MAX;
  for (let i = 0; i < row.length; i++) target[offset + i] = Math.round((row[i] as number) / scale);
  return scale;
}

/** Fills a matrix with the unit form of each vector (8-bit through one scratch row). */
function fillFromVectors(vectors: readonly Float32Array[], dimensions: number): FillRows {
  return ({ values, scales, nonFinite }) => {
    const unit = scales === null ? null : new Float32Array(dimensions);
    vectors.forEach((vector, row) => {
      const norm = measureNorm(vector);
      if (!Number.isFinite(norm)) {
        nonFinite.push(row);
        return;
      }
      if (unit === null || scales === null) {
        writeUnitRow(vector, norm, values as Float32Array, row * dimensions);
        return;
      }
      writeUnitRow(vector, norm, unit, 0);
      scales[row] = quantizeRow(unit, values as Int8Array, row * dimensions);
    });
  };
}

function markNonFinite(rows: RowMatrix, scores: Float32Array | Float64Array): void {
  for (const row of rows.nonFinite) scores[row] = Number.NaN;
}

function createJsScorer(
  count: number,
  dimensions: number,
  isInt8: boolean,
  fill: FillRows,
): RowScorer {
  const rows: RowMatrix = {
    values: isInt8 ? new Int8Array(count * dimensions) : new Float32Array(count * dimensions),
    scales: isInt8 ? new Float32Array(count) : null,
    nonFinite: [],
  };
  fill(rows);
  return scanRowsInJs(rows, count, dimensions);
}

/** The JavaScript loop over rows as they are (a restored index's stored arrays, say). */
function scanRowsInJs(rows: RowMatrix, count: number, dimensions: number): RowScorer {
  // One buffer of scores and one float64 copy of the query, reused by every search.
  const scores = new Float64Array(count);
  const query = new Float64Array(dimensions);
  const { values, scales } = rows;
  return {
    scan: 'js',
    matrixBytes: values.byteLength + (scales?.byteLength ?? 0),
    rows,
    score(unitQuery) {
      query.set(unitQuery);
      if (values instanceof Int8Array && scales !== null)
        scoreInt8Rows(values, scales, query, dimensions, scores);
      else scoreFloatRows(values as Float32Array, query, dimensions, scores);
      markNonFinite(rows, scores);
      return scores;
    },
  };
}

const alignUp = (bytes: number): number => Math.ceil(bytes / KERNEL_ALIGN) * KERNEL_ALIGN;
const roundUp = (count: number, step: number): number => Math.ceil(count / step) * step;

/**
 * Rows packed in wasm memory after the query (padded with zeros to whole kernel steps), the
 * scores and the per-row scales: [query | scores | scales | rows | slack]. Sized once here, so
 * the views stay valid. Null when the kernel or that much memory is not available.
 */
function createSimdScorer(
  count: number,
  dimensions: number,
  isInt8: boolean,
  fill: FillRows,
): RowScorer | null {
  const queryLength = roundUp(dimensions, isInt8 ? I8_STEP : F32_STEP);
  const queryAt = 0;
  const queryEnd = queryLength * (isInt8 ? 2 : 4);
  const scoresAt = alignUp(queryEnd);
  const scalesAt = alignUp(scoresAt + count * 4);
  const rowBytes = dimensions * (isInt8 ? 1 : 4);
  const rowsAt = alignUp(scalesAt + (isInt8 ? count * 4 : 0));
  const rowsEnd = rowsAt + count * rowBytes;
  const kernel = instantiateDotKernel(rowsEnd + KERNEL_SLACK);
  if (kernel === null) return null;
  const { buffer } = kernel.memory;
  const scores = new Float32Array(buffer, scoresAt, count);
  // The kernel's reads past a row's end must see finite values: rows that are not stay zeros.
  const rows: RowMatrix = {
    values: isInt8
      ? new Int8Array(buffer, rowsAt, count * dimensions)
      : new Float32Array(buffer, rowsAt, count * dimensions),
    scales: isInt8 ? new Float32Array(buffer, scalesAt, count) : null,
    nonFinite: [],
  };
  fill(rows);
  const matrixBytes = rows.values.byteLength + (rows.scales?.byteLength ?? 0);

  if (isInt8) {
    const query = new Int16Array(buffer, queryAt, queryLength);
    // The int16 query's range keeps every sum within int32: |dot| ≤ length × 127 × range.
    const range = Math.min(INT16_MAX, Math.floor(INT32_MAX / (queryLength * INT8_MAX)));
    return {
      scan: 'wasm-simd',
      matrixBytes,
      rows,
      score(unitQuery) {
        let largest = 0;
        for (const value of unitQuery) largest = Math.max(largest, Math.abs(value));
        const queryScale = largest === 0 ? 0 : largest / range;
        for (let i = 0; i < dimensions; i++)
          query[i] = queryScale === 0 ? 0 : Math.round((unitQuery[i] as number) / queryScale);
        kernel.dotI8(rowsAt, rowsEnd, rowBytes, queryAt, queryEnd, scoresAt, scalesAt, queryScale);
        markNonFinite(rows, scores);
        return scores;
      },
    };
  }
  const query = new Float32Array(buffer, queryAt, queryLength);
  return {
    scan: 'wasm-simd',
    matrixBytes,
    rows,
    score(unitQuery) {
      query.set(unitQuery);
      kernel.dotF32(rowsAt, rowsEnd, rowBytes, queryAt, queryEnd, scoresAt);
      markNonFinite(rows, scores);
      return scores;
    },
  };
}

/**
 * A vector index as stored: its unit rows (8-bit with a scale per row when `scales` is set)
 * and the rows whose vectors held a NaN or an infinity. The ids are kept by whoever stores it.
 */
export interface VectorIndexState {
  dimensions: number;
  values: Int8Array | Float32Array;
  scales: Float32Array | null;
  nonFiniteRows: Int32Array;
}

export function createVectorIndex(
  entries: readonly VectorEntry[],
  options: VectorIndexOptions = {},
): VectorIndex {
  const dimensions = entries[0]?.vector.length ?? 0;
  const usable: number[] = [];
  entries.forEach((entry, at) => {
    if (entry.vector.length === dimensions) usable.push(at);
  });
  return createVectorIndexOver(
    listRowIds(usable.map((at) => (entries[at] as VectorEntry).id)),
    dimensions,
    options.isInt8 === true,
    options.useSimd,
    fillFromVectors(
      usable.map((at) => (entries[at] as VectorEntry).vector),
      dimensions,
    ),
    // With entries left out, a hit's row is still its entry's position in `entries`.
    usable.length === entries.length ? null : usable,
  );
}

/**
 * The ids of an index's rows, in row order: how many, and each row's looked up when a search
 * returns it (a restore at 100,000 rows would otherwise spend about 20 ms listing them).
 */
export interface RowIds {
  readonly length: number;
  idOf(row: number): string;
}

/** The ids of rows held in a list. */
export const listRowIds = (ids: readonly string[]): RowIds => ({
  length: ids.length,
  idOf: (row) => ids[row] as string,
});

/**
 * The index a state was exported from, for the rows' ids `rowIds` (in row order), with no
 * normalising or quantizing again. Throws when the state's arrays disagree with the ids.
 */
export function restoreVectorIndex(
  rowIds: RowIds,
  state: VectorIndexState,
  options: Pick<VectorIndexOptions, 'useSimd'> = {},
): VectorIndex {
  const { dimensions, values, scales, nonFiniteRows } = state;
  const count = rowIds.length;
  const isInt8 = values instanceof Int8Array;
  if (!Number.isInteger(dimensions) || dimensions < 0 || (count > 0 && dimensions === 0))
    throw new Error('Vector index: stored dimensions are not a count');
  if (!(isInt8 || values instanceof Float32Array) || values.length !== count * dimensions)
    throw new Error('Vector index: stored rows do not match the ids');
  if (isInt8 ? !(scales instanceof Float32Array) || scales.length !== count : scales !== null)
    throw new Error('Vector index: stored scales do not match the rows');
  if (!(nonFiniteRows instanceof Int32Array) || nonFiniteRows.some((row) => row < 0 || row >= count))
    throw new Error('Vector index: a stored row number is out of range');
  const fill: FillRows = (rows) => {
    rows.values.set(values);
    if (scales !== null) rows.scales?.set(scales);
    rows.nonFinite.push(...nonFiniteRows);
    for (const row of nonFiniteRows) rows.values.fill(0, row * dimensions, (row + 1) * dimensions);
  };
  if (options.useSimd === false || dimensions === 0 || count === 0)
    return createVectorIndexOver(rowIds, dimensions, isInt8, options.useSimd, fill);
  // Scanned where they were read until prepareScan copies them into the kernel's memory. The
  // stored rows of non-finite vectors are scored NaN by their list, whatever they hold.
  let scorer = scanRowsInJs({ values, scales, nonFinite: Array.from(nonFiniteRows) }, count, dimensions);
  let isPrepared = false;
  return vectorIndexOver(rowIds, dimensions, () => scorer, () => {
    if (isPrepared) return;
    isPrepared = true;
    scorer = createSimdScorer(count, dimensions, isInt8, fill) ?? scorer;
  });
}

function createVectorIndexOver(
  ids: RowIds,
  dimensions: number,
  isInt8: boolean,
  useSimd: boolean | undefined,
  fill: FillRows,
  entryPositions: readonly number[] | null = null,
): VectorIndex {
  const count = ids.length;
  const scorer =
    (useSimd !== false && dimensions > 0 && count > 0
      ? createSimdScorer(count, dimensions, isInt8, fill)
      : null) ?? createJsScorer(count, dimensions, isInt8, fill);
  return vectorIndexOver(ids, dimensions, () => scorer, () => undefined, entryPositions);
}

/**
 * The index over whichever scorer `current` answers (one that `prepareScan` may replace). A
 * hit's `row` is `entryPositions[row]` when given.
 */
function vectorIndexOver(
  ids: RowIds,
  dimensions: number,
  current: () => RowScorer,
  prepareScan: () => void,
  entryPositions: readonly number[] | null = null,
): VectorIndex {
  const count = ids.length;
  return {
    size: count,
    dimensions,
    get matrixBytes() {
      return current().matrixBytes;
    },
    get scan() {
      return current().scan;
    },
    prepareScan,
    exportState() {
      const { values, scales, nonFinite } = current().rows;
      const state: VectorIndexState = {
        dimensions,
        values: values.slice(),
        scales: scales?.slice() ?? null,
        nonFiniteRows: Int32Array.from(nonFinite),
      };
      return { ids: Array.from({ length: count }, (_, row) => ids.idOf(row)), state };
    },
    search(query, limit) {
      if (query.length !== dimensions || count === 0) return [];
      const scores = current().score(normalizeVector(query));
      return Array.from(selectTopRows(scores, limit), (row) => ({
        id: ids.idOf(row),
        score: scores[row] as number,
        row: entryPositions === null ? row : (entryPositions[row] as number),
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
