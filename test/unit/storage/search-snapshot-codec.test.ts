import { describe, expect, it } from 'vitest';
import { asFileId } from '../../../src/core/model';
import type { ProjectSearchSnapshot } from '../../../src/core/ports';
import {
  decodeSearchSnapshot,
  encodeSearchSnapshot,
} from '../../../src/storage/search-snapshot-codec';

function buildSnapshot(isInt8: boolean): ProjectSearchSnapshot {
  const field = (offset: number) => ({
    starts: Int32Array.of(0, 6, 9),
    // Two terms' varints: the first in chunks 0 and 2 (once, then 300 times), the second once.
    postings: Uint8Array.of(2, 0, 1, 1 + offset, 0xac, 0x02, 1, 1, 2),
    lengths: Uint16Array.of(4, 7 + offset),
  });
  return {
    format: 1002,
    modelId: isInt8 ? 'model-a' : null,
    hasAnyVector: true,
    fileIds: [asFileId('f1'), asFileId('f2')],
    fileNames: ['notes.md', 'naïve — “quoted”.pdf'],
    chunkIds: ['f1:0', 'f2:0'],
    chunkFiles: Uint32Array.of(0, 1),
    locations: ['§1', 'p. 4\nline'],
    keywords: {
      terms: 'alpha\nbêta\n😀\n',
      fields: [field(0), field(-1)],
      dictionary: {
        sortedIds: Int32Array.of(0, 1, 2),
        trie: {
          units: Uint16Array.of(97, 98, 0xd83d),
          depths: Int32Array.of(1, 1, 1),
          ends: Int32Array.of(1, 2, 3),
          termIdsAt: Int32Array.of(0, -1, 2),
          shortestBelow: Int32Array.of(5, 4, 2),
          longestBelow: Int32Array.of(5, 4, 2),
        },
      },
    },
    vectors: {
      rows: Uint32Array.of(1),
      dimensions: 3,
      values: isInt8 ? Int8Array.of(127, -3, 0) : Float32Array.of(0.5, -0.25, Number.NaN),
      scales: isInt8 ? Float32Array.of(0.0078) : null,
      nonFiniteRows: isInt8 ? new Int32Array(0) : Int32Array.of(0),
    },
  };
}

describe('stored search snapshots', () => {
  it('read back exactly as written, in 8-bit and float32 rows, whatever the text holds', async () => {
    for (const isInt8 of [true, false]) {
      const snapshot = buildSnapshot(isInt8);
      const stored = structuredClone(encodeSearchSnapshot(snapshot));
      expect(stored.data).toBeInstanceOf(Blob);
      expect(await decodeSearchSnapshot(stored)).toEqual(snapshot);
    }
  });

  it('read as nothing when a part is missing, out of bounds, misaligned or of another kind, or the text does not parse', async () => {
    const broken: Array<[string, (stored: ReturnType<typeof encodeSearchSnapshot>) => void]> = [
      ['no vectors part', (stored) => delete stored.parts['vectors.values']],
      ['no terms', (stored) => delete stored.parts.terms],
      ['bytes cut short', (stored) => (stored.data = stored.data.slice(0, stored.data.size - 1))],
      ['a part past the end', (stored) => (stored.parts['text.postings'] = { kind: 'u8', offset: 0, length: 1e6 })],
      ['a misaligned part', (stored) => (stored.parts['text.starts'] = { kind: 'i32', offset: 1, length: 1 })],
      ['postings of another kind', (stored) => (stored.parts['text.postings'] = { kind: 'i8', offset: 0, length: 1 })],
      ['a part of another kind', (stored) => (stored.parts['text.lengths'] = { kind: 'i32', offset: 0, length: 1 })],
      ['an unknown part', (stored) => ((stored.parts as Record<string, unknown>).extra = { kind: 'i8', offset: 0, length: 0 })],
      ['ids that are not JSON', (stored) => (stored.parts.chunkIds = { kind: 'json', offset: 0, length: 1 })],
      ['ids that are not strings', (stored) => (stored.parts.chunkIds = { kind: 'json', offset: stored.parts['text.starts']?.offset ?? 0, length: 1 })],
      ['no bytes at all', (stored) => (stored.data = 'junk' as never)],
    ];
    for (const [label, breakIt] of broken) {
      const stored = encodeSearchSnapshot(buildSnapshot(true));
      breakIt(stored);
      expect({ label, snapshot: await decodeSearchSnapshot(stored) }).toEqual({ label, snapshot: null });
    }
    expect(await decodeSearchSnapshot({ junk: true })).toBeNull();
    expect(await decodeSearchSnapshot(null)).toBeNull();
  });
});
