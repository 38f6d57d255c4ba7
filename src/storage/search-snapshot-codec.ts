/**
 * A project's search snapshot as stored: its few small fields in the row, and its arrays and
 * long strings packed into one Blob. Chromium reads a Blob's bytes (`blob.arrayBuffer()`) three
 * to four times faster than the same bytes held in the row as an ArrayBuffer (28 MB: 165–480
 * against 550–930 ms; 85 MB: 400–840 against 1,700 ms, on the bench machine), and the typed
 * arrays are then views of the bytes read, with no copy. The vectors are the Blob's last part
 * and are read as their own slice: the index scans them there until it copies them into its
 * SIMD kernel's memory. Opened for a search, the keyword postings (40 MB of the 84 at 100,000
 * chunks) stay in the Blob and are read by range, term by term, as searches need them.
 */
import type { FileId } from '../core/model';
import type {
  FlatTrie,
  OpenedProjectSnapshot,
  ProjectSearchSnapshot,
  StoredBytes,
  StoredProjectSnapshot,
} from '../core/ports';

type ArrayKind = 'i8' | 'u8' | 'u16' | 'i32' | 'u32' | 'f32';
type PartKind = ArrayKind | 'text' | 'json';

/** Where a part lies in the Blob: its byte offset and its length (elements; bytes for text). */
interface StoredPart {
  kind: PartKind;
  offset: number;
  length: number;
}

const PART_NAMES = [
  'chunkIds',
  'locations',
  'terms',
  'chunkFiles',
  'text.starts',
  'text.lengths',
  'title.starts',
  'title.lengths',
  'dictionary.sortedIds',
  'trie.units',
  'trie.depths',
  'trie.ends',
  'trie.termIdsAt',
  'trie.shortestBelow',
  'trie.longestBelow',
  'vectors.rows',
  'vectors.scales',
  'vectors.nonFiniteRows',
  // Left in the Blob when the snapshot is opened for a search (earlier snapshots hold them
  // after their field's starts: the offsets say where).
  'text.postings',
  'title.postings',
  // Last: read as its own slice.
  'vectors.values',
] as const;
type PartName = (typeof PART_NAMES)[number];

export interface StoredSearchSnapshot {
  format: number;
  modelId: string | null;
  hasAnyVector: boolean;
  fileIds: string[];
  fileNames: string[];
  dimensions: number;
  /** Absent for a part that is null (the scales of float32 rows). */
  parts: Partial<Record<PartName, StoredPart>>;
  data: Blob;
}

type TypedArray = Int8Array | Uint8Array | Uint16Array | Int32Array | Uint32Array | Float32Array;
type PartValue = TypedArray | string | string[] | null;

const ALIGN = 8;
const KIND_OF = (array: TypedArray): ArrayKind =>
  array instanceof Int8Array
    ? 'i8'
    : array instanceof Uint8Array
      ? 'u8'
      : array instanceof Uint16Array
        ? 'u16'
        : array instanceof Int32Array
          ? 'i32'
          : array instanceof Uint32Array
            ? 'u32'
            : 'f32';

function partsOf(snapshot: ProjectSearchSnapshot): Record<PartName, PartValue> {
  const { keywords, vectors } = snapshot;
  const [text, title] = keywords.fields;
  const { sortedIds, trie } = keywords.dictionary;
  return {
    chunkIds: snapshot.chunkIds,
    locations: snapshot.locations,
    terms: keywords.terms,
    chunkFiles: snapshot.chunkFiles,
    'text.starts': text.starts,
    'text.postings': text.postings,
    'text.lengths': text.lengths,
    'title.starts': title.starts,
    'title.postings': title.postings,
    'title.lengths': title.lengths,
    'dictionary.sortedIds': sortedIds,
    'trie.units': trie.units,
    'trie.depths': trie.depths,
    'trie.ends': trie.ends,
    'trie.termIdsAt': trie.termIdsAt,
    'trie.shortestBelow': trie.shortestBelow,
    'trie.longestBelow': trie.longestBelow,
    'vectors.rows': vectors.rows,
    'vectors.scales': vectors.scales,
    'vectors.nonFiniteRows': vectors.nonFiniteRows,
    'vectors.values': vectors.values,
  };
}

export function encodeSearchSnapshot(snapshot: ProjectSearchSnapshot): StoredSearchSnapshot {
  const encoder = new TextEncoder();
  const pieces: BlobPart[] = [];
  const parts: Partial<Record<PartName, StoredPart>> = {};
  let offset = 0;
  const values = partsOf(snapshot);
  for (const name of PART_NAMES) {
    const value = values[name];
    if (value === null) continue;
    const padding = (ALIGN - (offset % ALIGN)) % ALIGN;
    if (padding > 0) pieces.push(new Uint8Array(padding));
    offset += padding;
    if (typeof value === 'string' || Array.isArray(value)) {
      const bytes = encoder.encode(typeof value === 'string' ? value : JSON.stringify(value));
      parts[name] = {
        kind: typeof value === 'string' ? 'text' : 'json',
        offset,
        length: bytes.length,
      };
      pieces.push(bytes);
      offset += bytes.length;
    } else {
      parts[name] = { kind: KIND_OF(value), offset, length: value.length };
      pieces.push(value as BlobPart);
      offset += value.byteLength;
    }
  }
  return {
    format: snapshot.format,
    modelId: snapshot.modelId,
    hasAnyVector: snapshot.hasAnyVector,
    fileIds: snapshot.fileIds,
    fileNames: snapshot.fileNames,
    dimensions: snapshot.vectors.dimensions,
    parts,
    data: new Blob(pieces),
  };
}

const BYTES: Record<ArrayKind, number> = { i8: 1, u8: 1, u16: 2, i32: 4, u32: 4, f32: 4 };

function view(kind: ArrayKind, buffer: ArrayBuffer, offset: number, length: number): TypedArray {
  switch (kind) {
    case 'i8':
      return new Int8Array(buffer, offset, length);
    case 'u8':
      return new Uint8Array(buffer, offset, length);
    case 'u16':
      return new Uint16Array(buffer, offset, length);
    case 'i32':
      return new Int32Array(buffer, offset, length);
    case 'u32':
      return new Uint32Array(buffer, offset, length);
    case 'f32':
      return new Float32Array(buffer, offset, length);
  }
}

/**
 * A stored snapshot's head, read from its row alone, and its arrays but the postings read from
 * the Blob only when asked for. Null when the row is not a snapshot's.
 */
export function openStoredSnapshot(stored: unknown): StoredProjectSnapshot | null {
  if (!isStoredShaped(stored)) return null;
  const { format, modelId, hasAnyVector, fileIds, fileNames } = stored;
  return {
    head: { format, modelId, hasAnyVector, fileIds: fileIds as FileId[], fileNames },
    open: () => openSearchSnapshot(stored),
  };
}

const POSTINGS: readonly PartName[] = ['text.postings', 'title.postings'];

/**
 * The snapshot a stored one holds, but each field's postings, which stay in the Blob, read by
 * range when a search needs a term's (a read that fails rejects, and the search joins the blocks
 * again). Null when it does not read (a part missing, out of the Blob's bounds or of another
 * kind, text that does not parse): it is then joined again. Whether the arrays agree with each
 * other is checked where the index is made (core/rag).
 */
export async function openSearchSnapshot(stored: unknown): Promise<OpenedProjectSnapshot | null> {
  if (!isStoredShaped(stored)) return null;
  const read = await readParts(stored);
  if (read === null) return null;
  const { parts, data } = stored;
  const postings = (prefix: 'text' | 'title'): StoredBytes => {
    const part = parts[`${prefix}.postings`];
    // Missing, of another kind or past the Blob's end: the snapshot does not read.
    if (part === undefined || part.kind !== 'u8' || part.offset + part.length > data.size)
      return undefined as never;
    return {
      length: part.length,
      async read(start, end) {
        if (!(
          Number.isInteger(start) &&
          Number.isInteger(end) &&
          start >= 0 &&
          start <= end &&
          end <= part.length
        ))
          throw new RangeError('Search snapshot: postings asked for out of their range');
        const bytes = await data.slice(part.offset + start, part.offset + end).arrayBuffer();
        if (bytes.byteLength !== end - start)
          throw new Error('Search snapshot: postings cut short');
        return new Uint8Array(bytes);
      },
    };
  };
  return assemble(stored, read, postings);
}

type PartReader = (name: PartName, kinds: readonly PartKind[]) => PartValue | undefined;

/** Bytes a part takes in the Blob; null for a part of an unknown kind. */
function measurePart(part: StoredPart): number | null {
  if (part.kind === 'text' || part.kind === 'json') return part.length;
  const bytes = (BYTES as Partial<Record<string, number>>)[part.kind];
  return bytes === undefined ? null : part.length * bytes;
}

/**
 * Reads every part but the postings from the Blob: parts that lie next to each other in one
 * slice, the vectors in a slice of their own. Null when the Blob does not read.
 */
async function readParts(stored: StoredSearchSnapshot): Promise<PartReader | null> {
  const { parts, data } = stored;
  if (parts['vectors.values'] === undefined) return null;
  const wanted = PART_NAMES.flatMap((name) => {
    const part = parts[name];
    const bytes = part === undefined ? null : measurePart(part);
    return part === undefined || bytes === null || POSTINGS.includes(name)
      ? []
      : [{ name, start: part.offset, end: part.offset + bytes }];
  }).sort((a, b) => a.start - b.start);
  const runs: Array<{ start: number; end: number; names: PartName[]; buffer?: ArrayBuffer }> = [];
  for (const { name, start, end } of wanted) {
    const last = runs.at(-1);
    if (
      last !== undefined &&
      name !== 'vectors.values' &&
      start >= last.end &&
      start - last.end < ALIGN
    ) {
      last.end = Math.max(last.end, end);
      last.names.push(name);
    } else runs.push({ start, end, names: [name] });
  }
  try {
    for (const run of runs) run.buffer = await data.slice(run.start, run.end).arrayBuffer();
  } catch {
    // Bytes the browser could not read (a file behind the Blob gone or unreadable).
    return null;
  }
  const runOf = new Map(runs.flatMap((run) => run.names.map((name) => [name, run] as const)));
  const decoder = new TextDecoder();
  return (name, kinds) => {
    const part = parts[name];
    const run = runOf.get(name);
    if (part === undefined || run?.buffer === undefined || !kinds.includes(part.kind))
      return undefined;
    const buffer = run.buffer;
    const offset = part.offset - run.start;
    if (part.kind === 'text' || part.kind === 'json') {
      if (offset + part.length > buffer.byteLength) return undefined;
      const text = decoder.decode(new Uint8Array(buffer, offset, part.length));
      if (part.kind === 'text') return text;
      const list: unknown = JSON.parse(text);
      return isStringArray(list) ? list : undefined;
    }
    if (
      part.offset % BYTES[part.kind] !== 0 ||
      offset % BYTES[part.kind] !== 0 ||
      offset + part.length * BYTES[part.kind] > buffer.byteLength
    )
      return undefined;
    return view(part.kind, buffer, offset, part.length);
  };
}

/** The snapshot from its parts, each field's postings left in the store (`postings`). */
function assemble(
  stored: StoredSearchSnapshot,
  read: PartReader,
  postings: (prefix: 'text' | 'title') => StoredBytes,
) {
  try {
    const field = (prefix: 'text' | 'title') => ({
      starts: read(`${prefix}.starts`, ['i32']) as Int32Array,
      postings: postings(prefix),
      lengths: read(`${prefix}.lengths`, ['u16']) as Uint16Array,
    });
    const snapshot = {
      format: stored.format,
      modelId: stored.modelId,
      hasAnyVector: stored.hasAnyVector,
      fileIds: stored.fileIds as FileId[],
      fileNames: stored.fileNames,
      chunkIds: read('chunkIds', ['json']) as string[],
      chunkFiles: read('chunkFiles', ['u32']) as Uint32Array,
      locations: read('locations', ['json']) as string[],
      keywords: {
        terms: read('terms', ['text']) as string,
        fields: [field('text'), field('title')] as [
          ReturnType<typeof field>,
          ReturnType<typeof field>,
        ],
        dictionary: {
          sortedIds: read('dictionary.sortedIds', ['i32']) as Int32Array,
          trie: {
            units: read('trie.units', ['u16']) as Uint16Array,
            depths: read('trie.depths', ['i32']) as Int32Array,
            ends: read('trie.ends', ['i32']) as Int32Array,
            termIdsAt: read('trie.termIdsAt', ['i32']) as Int32Array,
            shortestBelow: read('trie.shortestBelow', ['i32']) as Int32Array,
            longestBelow: read('trie.longestBelow', ['i32']) as Int32Array,
          },
        },
      },
      vectors: {
        rows: read('vectors.rows', ['u32']) as Uint32Array,
        dimensions: stored.dimensions,
        values: read('vectors.values', ['i8', 'f32']) as Int8Array | Float32Array,
        scales:
          stored.parts['vectors.scales'] === undefined
            ? null
            : (read('vectors.scales', ['f32']) as Float32Array),
        nonFiniteRows: read('vectors.nonFiniteRows', ['i32']) as Int32Array,
      },
    };
    const { keywords, vectors } = snapshot;
    // A part that did not read is undefined in spite of its type.
    const present: unknown[] = [
      snapshot.chunkIds,
      snapshot.chunkFiles,
      snapshot.locations,
      keywords.terms,
      ...keywords.fields.flatMap((part) => [part.starts, part.postings, part.lengths]),
      keywords.dictionary.sortedIds,
      ...trieArrays(keywords.dictionary.trie),
      vectors.rows,
      vectors.values,
      vectors.scales,
      vectors.nonFiniteRows,
    ];
    return present.includes(undefined) ? null : snapshot;
  } catch {
    // Text that does not parse.
    return null;
  }
}

function isStoredShaped(value: unknown): value is StoredSearchSnapshot {
  if (typeof value !== 'object' || value === null) return false;
  const stored = value as Record<string, unknown>;
  const { parts } = stored;
  return (
    typeof stored.format === 'number' &&
    (stored.modelId === null || typeof stored.modelId === 'string') &&
    typeof stored.hasAnyVector === 'boolean' &&
    isStringArray(stored.fileIds) &&
    isStringArray(stored.fileNames) &&
    typeof stored.dimensions === 'number' &&
    stored.data instanceof Blob &&
    typeof parts === 'object' &&
    parts !== null &&
    Object.entries(parts).every(
      ([name, part]) =>
        (PART_NAMES as readonly string[]).includes(name) &&
        typeof part === 'object' &&
        part !== null &&
        Number.isSafeInteger((part as StoredPart).offset) &&
        (part as StoredPart).offset >= 0 &&
        Number.isSafeInteger((part as StoredPart).length) &&
        (part as StoredPart).length >= 0,
    )
  );
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function trieArrays(trie: FlatTrie): unknown[] {
  const { units, depths, ends, termIdsAt, shortestBelow, longestBelow } = trie;
  return [units, depths, ends, termIdsAt, shortestBelow, longestBelow];
}
