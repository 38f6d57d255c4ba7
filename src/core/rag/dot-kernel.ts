/**
 * A WebAssembly SIMD kernel for the vector scan: the dot product of one query with every row of
 * a matrix in wasm memory, written as float32 scores into that memory. JavaScript has no SIMD;
 * wasm's 128-bit lanes do four float32 (or eight int16) multiply-adds per instruction.
 *
 * The module is encoded here, at load, from the instruction lists below: this file is its
 * source, so there is no toolchain, no build step and no checked-in binary to keep in sync
 * (`encodeDotKernel()` returns the bytes). The text form, for reading:
 *
 *     (import "env" "memory" (memory 0))
 *     (func (export "dotF32") (param $rows i32) (param $rowsEnd i32) (param $rowBytes i32)
 *           (param $query i32) (param $queryEnd i32) (param $out i32)
 *       ;; per row: four f32x4 sums over 16 floats a step, then out[row] = sum of the 16 lanes
 *     (func (export "dotI8") (param $rows i32) (param $rowsEnd i32) (param $rowBytes i32)
 *           (param $query i32) (param $queryEnd i32) (param $out i32)
 *           (param $scales i32) (param $queryScale f32)
 *       ;; per row: 32 int8 values a step widened to i16x8 and multiplied with the int16 query
 *       ;; by i32x4.dot_i16x8_s into four i32x4 sums; out[row] = sum × scales[row] × $queryScale
 *
 * Rows are packed (`$rowBytes` apart, no padding); the query is padded with zeros to whole steps
 * (`F32_STEP`, `I8_STEP`), so a step that runs past a row's end reads the next row's first
 * values (or, after the last row, `KERNEL_SLACK` spare bytes) times zero, which adds nothing.
 * That holds for finite values only: callers store a non-finite row as zeros and mark it apart.
 */

/** Float32 elements per step of `dotF32`: four f32x4 vectors. */
export const F32_STEP = 16;
/** Int8 elements per step of `dotI8`: two v128 loads of sixteen. */
export const I8_STEP = 32;
/** Byte alignment of the query, scores and scales, and of the first row. */
export const KERNEL_ALIGN = 16;
/** Readable bytes needed after the last row: at most one step beyond its end. */
export const KERNEL_SLACK = F32_STEP * 4;

export interface DotKernel {
  readonly memory: WebAssembly.Memory;
  /** Scores rows `[rows, rowsEnd)` (byte addresses, `rowBytes` apart) against the query into `out`. */
  dotF32(
    rows: number,
    rowsEnd: number,
    rowBytes: number,
    query: number,
    queryEnd: number,
    out: number,
  ): void;
  /** As `dotF32` for int8 rows and an int16 query, scaled per row and by `queryScale`. */
  dotI8(
    rows: number,
    rowsEnd: number,
    rowBytes: number,
    query: number,
    queryEnd: number,
    out: number,
    scales: number,
    queryScale: number,
  ): void;
}

// Value types, and the opcodes the two functions use (core, then the 0xfd SIMD prefix).
const I32 = 0x7f;
const F32 = 0x7d;
const V128 = 0x7b;
const op = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  f32Load: 0x2a,
  f32Store: 0x38,
  i32Const: 0x41,
  i32LtU: 0x49,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  f32Add: 0x92,
  f32Mul: 0x94,
  f32ConvertI32S: 0xb2,
} as const;
const simd = {
  v128Load: 0x00,
  v128Const: 0x0c,
  i32x4ExtractLane: 0x1b,
  f32x4ExtractLane: 0x1f,
  i16x8ExtendLowI8x16S: 0x87,
  i16x8ExtendHighI8x16S: 0x88,
  i32x4Add: 0xae,
  i32x4DotI16x8S: 0xba,
  f32x4Add: 0xe4,
  f32x4Mul: 0xe6,
} as const;
const EMPTY_BLOCK = 0x40;

function uleb(value: number): number[] {
  const bytes: number[] = [];
  let rest = value >>> 0;
  do {
    const low = rest & 0x7f;
    rest >>>= 7;
    bytes.push(rest === 0 ? low : low | 0x80);
  } while (rest !== 0);
  return bytes;
}

/** i32.const with its operand as a signed LEB128. */
function i32Const(value: number): number[] {
  const bytes: number[] = [];
  let rest = value | 0;
  for (;;) {
    const low = rest & 0x7f;
    rest >>= 7;
    const isLast = (rest === 0 && (low & 0x40) === 0) || (rest === -1 && (low & 0x40) !== 0);
    bytes.push(isLast ? low : low | 0x80);
    if (isLast) return [op.i32Const, ...bytes];
  }
}

const get = (local: number): number[] => [op.localGet, local];
const set = (local: number): number[] => [op.localSet, local];
const tee = (local: number): number[] => [op.localTee, local];
const simdOp = (code: number): number[] => [0xfd, ...uleb(code)];
/** v128.load at a constant offset; the query is 16-byte aligned, a packed row may not be. */
const v128Load = (offset: number, isAligned = true): number[] => [
  ...simdOp(simd.v128Load),
  isAligned ? 4 : 0,
  ...uleb(offset),
];
const v128Zero = (): number[] => [...simdOp(simd.v128Const), ...new Array<number>(16).fill(0)];
const addTo = (local: number, by: number): number[] => [
  ...get(local),
  ...i32Const(by),
  op.i32Add,
  ...set(local),
];

/** accumulator = add(accumulator, value), for an instruction list that leaves `value`. */
const accumulate = (accumulator: number, value: number[], add: number[]): number[] => [
  ...get(accumulator),
  ...value,
  ...add,
  ...set(accumulator),
];

/** Four accumulators of 128 bits, zeroed before each row. */
function zeroAccumulators(first: number): number[] {
  return [...v128Zero(), ...tee(first), ...tee(first + 1), ...tee(first + 2), ...set(first + 3)];
}

/** (a0 + a1) + (a2 + a3) with the given lane-wise add. */
function sumAccumulators(first: number, add: number[]): number[] {
  return [
    ...get(first),
    ...get(first + 1),
    ...add,
    ...get(first + 2),
    ...get(first + 3),
    ...add,
    ...add,
  ];
}

/** The four lanes of local `vector` added, as one scalar. */
function sumLanes(vector: number, extract: number, add: number): number[] {
  const lane = (index: number): number[] => [...get(vector), ...simdOp(extract), index];
  return [...lane(0), ...lane(1), add, ...lane(2), add, ...lane(3), add];
}

/** Params shared by both kernels, and the locals they both declare first. */
const ROWS = 0;
const ROWS_END = 1;
const ROW_BYTES = 2;
const QUERY = 3;
const QUERY_END = 4;
const OUT = 5;

/**
 * The shared shape: for each row, zero the sums, run `step` (which advances `rowCursor` and
 * `queryCursor`) until the query ends, store `score` at `out`, then move to the next row.
 */
function rowLoop(options: {
  rowCursor: number;
  queryCursor: number;
  accumulators: number;
  step: number[];
  score: number[];
  afterRow: number[];
}): number[] {
  const { rowCursor, queryCursor, accumulators, step, score, afterRow } = options;
  return [
    op.block,
    EMPTY_BLOCK,
    ...get(ROWS),
    ...get(ROWS_END),
    op.i32GeU,
    op.brIf,
    0,
    op.loop,
    EMPTY_BLOCK,
    ...zeroAccumulators(accumulators),
    ...get(ROWS),
    ...set(rowCursor),
    ...get(QUERY),
    ...set(queryCursor),
    op.loop,
    EMPTY_BLOCK,
    ...step,
    ...get(queryCursor),
    ...get(QUERY_END),
    op.i32LtU,
    op.brIf,
    0,
    op.end,
    ...get(OUT),
    ...score,
    op.f32Store,
    2,
    0,
    ...addTo(OUT, 4),
    ...afterRow,
    ...get(ROWS),
    ...get(ROW_BYTES),
    op.i32Add,
    ...tee(ROWS),
    ...get(ROWS_END),
    op.i32LtU,
    op.brIf,
    0,
    op.end,
    op.end,
  ];
}

/** dotF32: locals 6 row cursor, 7 query cursor, 8..11 sums, 12 their total. */
function dotF32Body(): number[] {
  const [rowCursor, queryCursor, sums, total] = [6, 7, 8, 12];
  const multiplyAdd = (accumulator: number, offset: number): number[] =>
    accumulate(
      accumulator,
      [
        ...get(rowCursor),
        ...v128Load(offset, false),
        ...get(queryCursor),
        ...v128Load(offset),
        ...simdOp(simd.f32x4Mul),
      ],
      simdOp(simd.f32x4Add),
    );
  const code = rowLoop({
    rowCursor,
    queryCursor,
    accumulators: sums,
    step: [
      ...multiplyAdd(sums, 0),
      ...multiplyAdd(sums + 1, 16),
      ...multiplyAdd(sums + 2, 32),
      ...multiplyAdd(sums + 3, 48),
      ...addTo(rowCursor, F32_STEP * 4),
      ...addTo(queryCursor, F32_STEP * 4),
    ],
    score: [
      ...sumAccumulators(sums, simdOp(simd.f32x4Add)),
      ...set(total),
      ...sumLanes(total, simd.f32x4ExtractLane, op.f32Add),
    ],
    afterRow: [],
  });
  return functionBody(
    [
      [2, I32],
      [5, V128],
    ],
    code,
  );
}

/**
 * dotI8: params 6 scales, 7 query scale; locals 8 row cursor, 9 query cursor, 10 loaded row
 * bytes, 11..14 sums, 15 their total.
 */
function dotI8Body(): number[] {
  const [scales, queryScale, rowCursor, queryCursor, bytes, sums, total] = [6, 7, 8, 9, 10, 11, 15];
  const dotInto = (accumulator: number, extend: number, queryOffset: number): number[] =>
    accumulate(
      accumulator,
      [
        ...get(bytes),
        ...simdOp(extend),
        ...get(queryCursor),
        ...v128Load(queryOffset),
        ...simdOp(simd.i32x4DotI16x8S),
      ],
      simdOp(simd.i32x4Add),
    );
  const code = rowLoop({
    rowCursor,
    queryCursor,
    accumulators: sums,
    step: [
      ...get(rowCursor),
      ...v128Load(0, false),
      ...set(bytes),
      ...dotInto(sums, simd.i16x8ExtendLowI8x16S, 0),
      ...dotInto(sums + 1, simd.i16x8ExtendHighI8x16S, 16),
      ...get(rowCursor),
      ...v128Load(16, false),
      ...set(bytes),
      ...dotInto(sums + 2, simd.i16x8ExtendLowI8x16S, 32),
      ...dotInto(sums + 3, simd.i16x8ExtendHighI8x16S, 48),
      ...addTo(rowCursor, I8_STEP),
      ...addTo(queryCursor, I8_STEP * 2),
    ],
    score: [
      ...sumAccumulators(sums, simdOp(simd.i32x4Add)),
      ...set(total),
      ...sumLanes(total, simd.i32x4ExtractLane, op.i32Add),
      op.f32ConvertI32S,
      ...get(scales),
      op.f32Load,
      2,
      0,
      op.f32Mul,
      ...get(queryScale),
      op.f32Mul,
    ],
    afterRow: addTo(scales, 4),
  });
  return functionBody(
    [
      [2, I32],
      [6, V128],
    ],
    code,
  );
}

function functionBody(locals: ReadonlyArray<readonly [number, number]>, code: number[]): number[] {
  const body = [
    ...uleb(locals.length),
    ...locals.flatMap(([count, type]) => [...uleb(count), type]),
    ...code,
    op.end,
  ];
  return [...uleb(body.length), ...body];
}

const vector = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const name = (text: string): number[] => [
  ...uleb(text.length),
  ...Array.from(text, (c) => c.charCodeAt(0)),
];
const section = (id: number, content: number[]): number[] => [
  id,
  ...uleb(content.length),
  ...content,
];

/** The module's bytes (a few hundred), encoded from the functions above. */
export function encodeDotKernel(): Uint8Array<ArrayBuffer> {
  const dotF32Type = [0x60, ...vector([[I32], [I32], [I32], [I32], [I32], [I32]]), 0];
  const dotI8Type = [0x60, ...vector([[I32], [I32], [I32], [I32], [I32], [I32], [I32], [F32]]), 0];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vector([dotF32Type, dotI8Type])),
    // import "env" "memory": a memory (kind 2) of at least 0 pages, no maximum.
    ...section(2, vector([[...name('env'), ...name('memory'), 0x02, 0x00, 0x00]])),
    ...section(3, vector([[0], [1]])),
    ...section(
      7,
      vector([
        [...name('dotF32'), 0x00, 0],
        [...name('dotI8'), 0x00, 1],
      ]),
    ),
    ...section(10, vector([dotF32Body(), dotI8Body()])),
  ]);
}

let compiled: WebAssembly.Module | undefined;

/**
 * The compiled kernel, or null where WebAssembly or its SIMD instructions are missing (the
 * module itself is the probe: `WebAssembly.validate` fails without SIMD) or compiling is not
 * allowed. Checked on each call and compiled once; the module is far below the size browsers
 * compile synchronously on the main thread.
 */
function compileDotKernel(): WebAssembly.Module | null {
  if (typeof WebAssembly !== 'object') return null;
  const bytes = encodeDotKernel();
  try {
    if (!WebAssembly.validate(bytes)) return null;
  } catch {
    return null;
  }
  try {
    compiled ??= new WebAssembly.Module(bytes);
  } catch {
    // A Content-Security-Policy without 'wasm-unsafe-eval' forbids compiling: the JS scan it is.
    return null;
  }
  return compiled;
}

/** An instance over a fresh memory of `bytes`, or null without SIMD or when that much cannot be had. */
export function instantiateDotKernel(bytes: number): DotKernel | null {
  const module = compileDotKernel();
  if (module === null) return null;
  const pages = Math.max(1, Math.ceil(bytes / 65_536));
  let memory: WebAssembly.Memory;
  try {
    memory = new WebAssembly.Memory({ initial: pages });
  } catch {
    // Above the engine's wasm32 limit (4 GiB at most) or out of memory: the JS scan still works.
    return null;
  }
  const { exports } = new WebAssembly.Instance(module, { env: { memory } });
  return {
    memory,
    dotF32: exports.dotF32 as DotKernel['dotF32'],
    dotI8: exports.dotI8 as DotKernel['dotI8'],
  };
}
