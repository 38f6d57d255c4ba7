import { describe, expect, it } from 'vitest';
import {
  chooseWasmThreadCount,
  MAX_WASM_THREADS,
} from '../../../../src/workers/embedding/transformers-embedder';

describe('chooseWasmThreadCount', () => {
  it('runs one thread per core on a cross-origin isolated page', () => {
    expect(chooseWasmThreadCount({ isCrossOriginIsolated: true, hardwareConcurrency: 2 })).toBe(2);
  });

  it(`stops at ${MAX_WASM_THREADS} threads however many cores there are`, () => {
    expect(chooseWasmThreadCount({ isCrossOriginIsolated: true, hardwareConcurrency: 16 })).toBe(
      MAX_WASM_THREADS,
    );
  });

  it('runs one thread when the page is not cross-origin isolated (no SharedArrayBuffer)', () => {
    expect(chooseWasmThreadCount({ isCrossOriginIsolated: false, hardwareConcurrency: 8 })).toBe(1);
  });

  it('runs one thread when the browser reports no usable core count', () => {
    for (const hardwareConcurrency of [0, Number.NaN])
      expect(chooseWasmThreadCount({ isCrossOriginIsolated: true, hardwareConcurrency })).toBe(1);
  });
});
