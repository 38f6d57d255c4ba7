import { describe, expect, it } from 'vitest';
import { asFileId } from '../../../src/core/model';
import type { ProjectSearchSnapshot } from '../../../src/core/ports';
import {
  encodeSearchSnapshot,
  openSearchSnapshot,
  type StoredSearchSnapshot,
} from '../../../src/storage/search-snapshot-codec';
import { readWholeSnapshot } from './read-whole-snapshot';

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
      expect(await readWholeSnapshot(stored)).toEqual(snapshot);
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
      expect({ label, snapshot: await readWholeSnapshot(stored) }).toEqual({ label, snapshot: null });
    }
    expect(await readWholeSnapshot({ junk: true })).toBeNull();
    expect(await readWholeSnapshot(null)).toBeNull();
  });
});

/** The same parts laid out in the Blob in reverse order, as another version might have. */
async function reverseLayout(stored: StoredSearchSnapshot): Promise<StoredSearchSnapshot> {
  const bytes = new Uint8Array(await stored.data.arrayBuffer());
  const entries = Object.entries(stored.parts).sort(([, a], [, b]) => (b?.offset ?? 0) - (a?.offset ?? 0));
  const pieces: Array<Uint8Array<ArrayBuffer>> = [];
  const parts: StoredSearchSnapshot['parts'] = {};
  let offset = 0;
  for (const [name, part] of entries) {
    if (part === undefined) continue;
    const size = part.kind === 'text' || part.kind === 'json' ? part.length : part.length * { i8: 1, u8: 1, u16: 2, i32: 4, u32: 4, f32: 4 }[part.kind];
    const padding = (8 - (offset % 8)) % 8;
    pieces.push(new Uint8Array(padding), bytes.slice(part.offset, part.offset + size));
    offset += padding;
    parts[name as keyof StoredSearchSnapshot['parts']] = { ...part, offset };
    offset += size;
  }
  return { ...stored, parts, data: new Blob(pieces) };
}

describe('stored search snapshots opened for a search', () => {
  it('hold everything as read does but the postings, which read by range, also from another layout', async () => {
    for (const isInt8 of [true, false]) {
      const snapshot = buildSnapshot(isInt8);
      const encoded = structuredClone(encodeSearchSnapshot(snapshot));
      for (const stored of [encoded, await reverseLayout(encoded)]) {
        expect(await readWholeSnapshot(stored)).toEqual(snapshot);
        const opened = await openSearchSnapshot(stored);
        if (opened === null) throw new Error('expected the snapshot to open');
        const { keywords, ...rest } = opened;
        const { keywords: expectedKeywords, ...expectedRest } = snapshot;
        expect(rest).toEqual(expectedRest);
        expect({ ...keywords, fields: null }).toEqual({ ...expectedKeywords, fields: null });
        for (const [at, field] of keywords.fields.entries()) {
          const expected = expectedKeywords.fields[at];
          if (expected === undefined) throw new Error('expected two fields');
          expect([field.starts, field.lengths]).toEqual([expected.starts, expected.lengths]);
          expect(field.postings.length).toBe(expected.postings.length);
          expect(await field.postings.read(0, field.postings.length)).toEqual(expected.postings);
          expect(await field.postings.read(3, 6)).toEqual(expected.postings.slice(3, 6));
          await expect(field.postings.read(0, field.postings.length + 1)).rejects.toThrow(RangeError);
          await expect(field.postings.read(2, 1)).rejects.toThrow(RangeError);
        }
      }
    }
  });

  it('open as nothing when the postings are missing, of another kind or past the bytes', async () => {
    const broken: Array<[string, (stored: StoredSearchSnapshot) => void]> = [
      ['no postings', (stored) => delete stored.parts['title.postings']],
      ['postings of another kind', (stored) => (stored.parts['text.postings'] = { kind: 'i8', offset: 0, length: 1 })],
      ['postings past the end', (stored) => (stored.parts['text.postings'] = { kind: 'u8', offset: 0, length: 1e6 })],
      ['no vectors part', (stored) => delete stored.parts['vectors.values']],
    ];
    for (const [label, breakIt] of broken) {
      const stored = encodeSearchSnapshot(buildSnapshot(true));
      breakIt(stored);
      expect({ label, snapshot: await openSearchSnapshot(stored) }).toEqual({ label, snapshot: null });
    }
    expect(await openSearchSnapshot({ junk: true })).toBeNull();
  });
});
