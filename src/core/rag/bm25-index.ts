/**
 * Keyword ranking: BM25 exactly as MiniSearch scores it (BM25+ with k = 1.2, b = 0.7, d = 0.5;
 * prefix and fuzzy expansions weighted as MiniSearch weights them; the score multiplied by the
 * number of query terms a chunk matches), over a compact index built for large projects.
 *
 * Why not `MiniSearch.search`: it builds a result object (with its matched terms) for every
 * chunk that matches any query term and sorts them all. With OR over every term that is most
 * of a 100k-chunk project (60,000 objects per query in bench 3, 140–570 ms). Here the postings
 * are typed arrays, scores accumulate in one reused Float64Array, and a bounded top-k selection
 * takes the best `limit`. The term dictionary (term-dictionary.ts: a sorted list for prefixes,
 * length groups and bit-parallel edit distance for fuzzy terms) finds the expansions; MiniSearch
 * still provides the tokenizer, and the tests check the rankings against it.
 */
import MiniSearch from 'minisearch';
import type { StoredBytes } from '../ports';
import { createTermDictionary, type TermDictionaryLayout } from './term-dictionary';
import { selectTopRows } from './top-k';

export interface RankedId {
  id: string;
  score: number;
  /** Where it lies in the index that ranked it: the document's number, or the vector's row. */
  row: number;
}

/**
 * Thrown by a search when postings restored from a store turn out damaged as it first reads
 * them: whoever restored the index should build it again from its sources.
 */
export class DamagedIndexError extends Error {
  override name = 'DamagedIndexError';
}

export interface KeywordDocument {
  id: string;
  text: string;
  /** File name and heading path: matches there count more. */
  title: string;
}

const TITLE_BOOST = 1.5;
/** Fuzzy matching allows this share of the term's length in edits (terms longer than 5). */
const FUZZY_RATIO = 0.15;
const FUZZY_FROM_LENGTH = 6;
/** Prefix matching for terms longer than 3: "install" finds "installation". */
const PREFIX_FROM_LENGTH = 4;
/** MiniSearch's defaults, kept so scores stay comparable with it. */
const MAX_FUZZY_DISTANCE = 6;
const PREFIX_WEIGHT = 0.375;
const FUZZY_WEIGHT = 0.45;
const BM25_K = 1.2;
const BM25_B = 0.7;
const BM25_D = 0.5;

/** Words too common to say anything about relevance. */
export const KEYWORD_STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be by for from has have how i in is it its of on or that the this to was were what when where which who why will with you your does do did can'.split(
    ' ',
  ),
);

/** How many edits a query term may be from a term it matches fuzzily: 0 for short terms. */
export function measureFuzzyDistance(term: string): number {
  if (term.length < FUZZY_FROM_LENGTH) return 0;
  return Math.min(MAX_FUZZY_DISTANCE, Math.round(term.length * FUZZY_RATIO));
}

export function normalizeTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return KEYWORD_STOP_WORDS.has(lower) ? null : lower;
}

const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];

export interface KeywordIndex {
  readonly size: number;
  /** The ids of the best `limit` documents, best first; documents matching no term are left out. */
  search(query: string, limit: number): RankedId[];
  /**
   * Reads from the store the postings a search for `query` needs, for an index opened with its
   * postings left there (openKeywordIndex); resolves at once for any other. Rejects with
   * DamagedIndexError when they cannot be read or do not check out.
   */
  prepare(query: string): Promise<void>;
  /**
   * What the index holds, to store and restore without counting again (the arrays are the
   * index's own: do not change them).
   */
  exportState(): KeywordIndexState;
}

/**
 * A joined index as stored: the terms packed as a segment holds them (id order), and each
 * field's postings by term. The document ids are kept by whoever stores it (they are the
 * chunks' ids, in index order).
 */
export interface KeywordIndexState {
  terms: string;
  /** The text field, then the title field. */
  fields: [KeywordFieldState, KeywordFieldState];
  /** The terms' sorted order and trie, so that restoring sorts nothing. */
  dictionary: TermDictionaryLayout;
}

/**
 * Term t's postings in one field are the bytes `postings[starts[t]..starts[t + 1])` (none when
 * the field does not hold the term): how many documents hold it, then for each of them in
 * ascending order how far it is past the one before, less one (the first: its number), and how
 * often the term occurs in it. Each number is an unsigned LEB128 varint, so most take one byte:
 * about 2.2 bytes a posting on the bench's 100,000 chunks, against 6 as two typed arrays, which
 * is what a cold open reads back and what the index holds in memory.
 */
export interface KeywordFieldState {
  starts: Int32Array;
  postings: Uint8Array;
  /** MiniSearch's field length of each document: distinct raw tokens in the field. */
  lengths: Uint16Array;
}

/**
 * One field's postings in compressed-row form, with what scoring derives from them. `lengths`
 * is MiniSearch's field length: distinct raw tokens in the field.
 */
interface FieldPostings extends KeywordFieldState {
  boost: number;
  averageLength: number;
}

/** A term the query reaches (exactly, by prefix or fuzzily) and how much it counts. */
interface Expansion {
  termId: number;
  weight: number;
}

/**
 * Documents tokenized and counted, ready to index: what a project stores per file so that opening
 * it indexes without tokenizing again. Indexing segments in order ranks exactly as indexing their
 * documents in that order (`createKeywordIndex`).
 */
/**
 * Bump when tokenizing, counting or the segment's layout changes: stored segments of another
 * format are rebuilt. 2: the terms are one packed string.
 */
export const KEYWORD_SEGMENT_FORMAT = 2;

/** Ends each term in a segment's packed terms: the tokenizer splits on it, so no term holds it. */
export const TERM_END = '\n';

export interface KeywordSegment {
  ids: string[];
  /**
   * The segment's terms, each followed by TERM_END: those of the text field in first-seen order,
   * then those only in titles. One string, so that storing and reading a segment copies one
   * string instead of thousands, and joining segments makes no string per term.
   */
  terms: string;
  /** How many of `terms` occur in the text field (they come first). */
  textTermCount: number;
  /** The text field, then the title field. */
  fields: [SegmentField, SegmentField];
}

/**
 * Document d's terms are `termRefs[docStarts[d]..docStarts[d + 1])` (indexes into `terms`), and
 * how often each occurs is `frequencies` at the same place. Each array takes the narrower type
 * when its values allow it (16-bit references while the segment has at most 65,536 terms, 8-bit
 * frequencies while none passes 255): a third of the bytes to store and to read back.
 */
export interface SegmentField {
  docStarts: Uint32Array;
  termRefs: Uint16Array | Uint32Array;
  frequencies: Uint8Array | Uint16Array;
  /** MiniSearch's field length: distinct raw tokens in the field. */
  lengths: Uint16Array;
}

export function createKeywordIndex(documents: readonly KeywordDocument[]): KeywordIndex {
  return createKeywordIndexFromSegments([createKeywordSegment(documents)]);
}

/** Tokenizes and counts the documents' fields (the costly half of indexing). */
export function createKeywordSegment(documents: readonly KeywordDocument[]): KeywordSegment {
  const termRefs = new Map<string, number>();
  const text = countField(documents, (document) => document.text, termRefs);
  const textTermCount = termRefs.size;
  const title = countField(documents, (document) => document.title, termRefs);
  return {
    ids: documents.map((document) => document.id),
    terms: packTerms(termRefs.keys()),
    textTermCount,
    fields: [text, title],
  };
}

export function createKeywordIndexFromSegments(segments: readonly KeywordSegment[]): KeywordIndex {
  const ids = segments.flatMap((segment) => segment.ids);
  if (new Set(ids).size !== ids.length) throw new Error('Keyword index: duplicate document id');
  // Term ids in the order indexing the documents one by one would give them: every text
  // field's terms first, then terms seen only in titles (the dictionary's order follows it).
  const interner = createTermInterner();
  const localToGlobal = segments.map((segment) => new Int32Array(countTerms(segment.terms)));
  // Where each segment's title-only terms begin in its packed terms.
  const titleStarts = segments.map((segment, index) =>
    interner.internRun(
      segment.terms,
      0,
      0,
      segment.textTermCount,
      localToGlobal[index] as Int32Array,
    ),
  );
  segments.forEach((segment, index) => {
    const map = localToGlobal[index] as Int32Array;
    interner.internRun(
      segment.terms,
      titleStarts[index] as number,
      segment.textTermCount,
      map.length,
      map,
    );
  });
  const termCount = interner.terms.length;
  const fields = [0, 1].map((field) =>
    mergeFieldPostings(segments, field, localToGlobal, termCount),
  ) as [KeywordFieldState, KeywordFieldState];
  // Ids were given in order of first sight, so the list is in id order.
  return createKeywordIndexOver(ids, interner.terms, fields);
}

/** A stored index whose fields' postings are still in the store. */
export interface StoredKeywordIndexState extends Omit<KeywordIndexState, 'fields'> {
  fields: [StoredKeywordField, StoredKeywordField];
}

export interface StoredKeywordField extends Omit<KeywordFieldState, 'postings'> {
  postings: StoredBytes;
}

/**
 * The index a state was exported from, for the documents `ids` (in index order), with each
 * field's postings left in the store: `prepare` reads the terms a query reaches, by range (a
 * term's bytes in a field are contiguous), into an array as long as the stored postings whose
 * untouched pages the system never commits, so memory holds the postings searched so far. A
 * restore at 100,000 chunks would otherwise read 40 MB before its first answer.
 *
 * Throws when the state's arrays disagree with each other or with the ids in their shape, so a
 * damaged store is never ranked from. Each term's postings are checked as `prepare` reads them:
 * damaged, it rejects with DamagedIndexError. The ids are not checked for repeats (a Set of
 * 100,000 ids costs about 60 ms): they were unique when stored, and a repeat could only give
 * two chunks one id, never a posting outside the index.
 */
export function openKeywordIndex(
  ids: readonly string[],
  state: StoredKeywordIndexState,
): KeywordIndex {
  const stored = state.fields.map((field) => field.postings);
  if (
    stored.length !== 2 ||
    stored.some((bytes) => !Number.isSafeInteger(bytes.length) || bytes.length < 0)
  )
    throw new Error('Keyword index: a stored index needs two fields of postings');
  const fields = state.fields.map((field) => ({
    ...field,
    postings: new Uint8Array(field.postings.length),
  })) as [KeywordFieldState, KeywordFieldState];
  const { terms: packed, dictionary } = state;
  const terms = checkStoredTerms(packed, fields, ids.length);
  return createKeywordIndexOver(ids, terms, fields, dictionary, {
    checked: new Uint8Array(terms.length),
    stored: stored as [StoredBytes, StoredBytes],
  });
}

/** The stored terms, once they and the fields' shapes check out. */
function checkStoredTerms(
  packed: string,
  fields: readonly KeywordFieldState[],
  documentCount: number,
): string[] {
  if (packed !== '' && !packed.endsWith(TERM_END))
    throw new Error('Keyword index: the stored terms do not end in a separator');
  const terms = packed === '' ? [] : packed.slice(0, -TERM_END.length).split(TERM_END);
  if (fields.length !== 2) throw new Error('Keyword index: a stored index needs two fields');
  for (const field of fields) checkFieldShape(field, terms.length, documentCount);
  return terms;
}

/** What can be checked without decoding: the arrays' kinds and lengths, and where terms start. */
function checkFieldShape(field: KeywordFieldState, termCount: number, documentCount: number): void {
  const { starts, postings, lengths } = field;
  if (
    !(starts instanceof Int32Array) ||
    !(postings instanceof Uint8Array) ||
    !(lengths instanceof Uint16Array)
  )
    throw new Error('Keyword index: a stored field is not of typed arrays');
  if (starts.length !== termCount + 1 || starts[0] !== 0 || starts[termCount] !== postings.length)
    throw new Error('Keyword index: stored term starts do not cover the postings');
  if (lengths.length !== documentCount)
    throw new Error('Keyword index: stored field lengths differ from the documents');
  for (let term = 0; term < termCount; term++) {
    if ((starts[term + 1] as number) < (starts[term] as number))
      throw new Error('Keyword index: stored term starts go backwards');
  }
}

/**
 * Decodes one term's stored postings in one field: its bytes must hold its count of documents,
 * each of them a document of the index (so in ascending order, by construction) with a count
 * of at least one, and end exactly where the next term's begin.
 */
function checkTermPostings(field: KeywordFieldState, term: number): void {
  const { starts, postings, lengths } = field;
  const documentCount = lengths.length;
  let at = starts[term] as number;
  const end = starts[term + 1] as number;
  if (at === end) return;
  // Read inline, as in scoring. Past the end of the bytes a read gives undefined, which reads
  // as a zero: where the term ends is checked.
  let byte = postings[at++] as number;
  let count = byte & 0x7f;
  for (let scale = 0x80; (byte & 0x80) !== 0; scale *= 0x80) {
    byte = postings[at++] as number;
    count += (byte & 0x7f) * scale;
  }
  if (count < 1 || count > documentCount)
    throw new DamagedIndexError('Keyword index: a stored term holds no documents');
  let doc = -1;
  for (let posting = 0; posting < count; posting++) {
    if (at >= end)
      throw new DamagedIndexError(
        'Keyword index: a stored term holds fewer postings than it counts',
      );
    byte = postings[at++] as number;
    let gap = byte & 0x7f;
    for (let scale = 0x80; (byte & 0x80) !== 0; scale *= 0x80) {
      byte = postings[at++] as number;
      gap += (byte & 0x7f) * scale;
    }
    doc += gap + 1;
    byte = postings[at++] as number;
    let frequency = byte & 0x7f;
    for (let scale = 0x80; (byte & 0x80) !== 0; scale *= 0x80) {
      byte = postings[at++] as number;
      frequency += (byte & 0x7f) * scale;
    }
    if (doc >= documentCount)
      throw new DamagedIndexError('Keyword index: a stored posting names no document');
    if (frequency < 1 || frequency > 0xffff)
      throw new DamagedIndexError('Keyword index: a stored posting has no count');
  }
  if (at !== end)
    throw new DamagedIndexError("Keyword index: a stored term's postings do not fill its bytes");
}

/** Appends `value` (an unsigned integer) as an unsigned LEB128 varint; returns the new end. */
function writeVarint(bytes: Uint8Array, at: number, value: number): number {
  let rest = value;
  while (rest >= 0x80) {
    bytes[at++] = (rest & 0x7f) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  bytes[at++] = rest;
  return at;
}

/** Bytes `value` (an unsigned integer below 2^35) takes as an unsigned LEB128 varint. */
function varintLength(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;
}

/**
 * Postings still in a store: `prepare` reads each term's the first time a query reaches it, and
 * checks them (`checked`: one flag per term).
 */
interface StoredPostings {
  checked: Uint8Array;
  stored: [StoredBytes, StoredBytes];
}

/** Stored postings ranges closer than this are read as one. */
const READ_GAP_BYTES = 16 * 1024;

/** Query terms with how often each occurs (repeats count once more each, as in MiniSearch). */
function countQueryTerms(query: string): Map<string, number> {
  const occurrences = new Map<string, number>();
  for (const token of tokenize(query)) {
    const term = normalizeTerm(token);
    if (term) occurrences.set(term, (occurrences.get(term) ?? 0) + 1);
  }
  return occurrences;
}

/** Expansions kept per query term: the dictionary never changes, and fuzzy matching is costly. */
const EXPANSIONS_KEPT = 1024;

/** With `fromStore`, the postings are a store's (see StoredPostings); without it, built here. */
function createKeywordIndexOver(
  ids: readonly string[],
  terms: readonly string[],
  fieldStates: readonly [KeywordFieldState, KeywordFieldState],
  layout?: TermDictionaryLayout,
  fromStore?: StoredPostings,
): KeywordIndex {
  const documentCount = ids.length;
  const fields = fieldStates.map((state, field): FieldPostings => ({
    ...state,
    boost: field === 0 ? 1 : TITLE_BOOST,
    averageLength: measureAverageLength(state.lengths),
  }));
  const dictionary = createTermDictionary(terms, layout);
  const pass = createScoringPass(documentCount);

  const expansionsByTerm = new Map<string, Expansion[]>();

  function expandOnce(term: string): Expansion[] {
    let expansions = expansionsByTerm.get(term);
    if (expansions === undefined) {
      expansions = expand(term);
      if (expansionsByTerm.size >= EXPANSIONS_KEPT) expansionsByTerm.clear();
      expansionsByTerm.set(term, expansions);
    }
    return expansions;
  }

  /** Reads the given terms' stored postings (ascending ids) into the fields, then checks them. */
  async function readTerms(stored: [StoredBytes, StoredBytes], termIds: readonly number[]) {
    await Promise.all(
      fieldStates.map(async (field, at) => {
        const runs: Array<[number, number]> = [];
        for (const termId of termIds) {
          const start = field.starts[termId] as number;
          const end = field.starts[termId + 1] as number;
          if (start === end) continue;
          const last = runs.at(-1);
          if (last !== undefined && start - last[1] <= READ_GAP_BYTES) last[1] = end;
          else runs.push([start, end]);
        }
        const bytes = await Promise.all(
          runs.map(([start, end]) => (stored[at] as StoredBytes).read(start, end)),
        ).catch((error: unknown) => {
          throw new DamagedIndexError('Keyword index: stored postings could not be read', {
            cause: error,
          });
        });
        runs.forEach(([start, end], run) => {
          const read = bytes[run] as Uint8Array;
          if (read.length !== end - start)
            throw new DamagedIndexError('Keyword index: stored postings read short');
          field.postings.set(read, start);
        });
      }),
    );
  }

  function expand(term: string): Expansion[] {
    const expansions: Expansion[] = [];
    const exact = dictionary.get(term);
    if (exact !== undefined) expansions.push({ termId: exact, weight: 1 });
    const prefixed = new Set<number>();
    if (term.length >= PREFIX_FROM_LENGTH) {
      dictionary.forEachWithPrefix(term, (candidate, termId) => {
        const distance = candidate.length - term.length;
        if (distance === 0) return;
        prefixed.add(termId);
        // Fades slowly with the extra length: "install" → "installation" still counts.
        const weight = (PREFIX_WEIGHT * candidate.length) / (candidate.length + 0.3 * distance);
        expansions.push({ termId, weight });
      });
    }
    const maxDistance = measureFuzzyDistance(term);
    if (maxDistance > 0) {
      dictionary.forEachWithin(term, maxDistance, (candidate, termId, distance) => {
        if (distance === 0 || prefixed.has(termId)) return;
        const weight = (FUZZY_WEIGHT * candidate.length) / (candidate.length + distance);
        expansions.push({ termId, weight });
      });
    }
    return expansions;
  }

  /** Checks a term's postings in both fields as they come from the store. */
  function checkTerm(termId: number): void {
    for (const field of fieldStates) {
      if (termId + 1 < field.starts.length) checkTermPostings(field, termId);
    }
  }

  return {
    size: documentCount,
    exportState: () => {
      if (fromStore !== undefined)
        throw new Error('Keyword index: an opened index holds only the postings searched so far');
      return {
        terms: packTerms(terms),
        fields: [...fieldStates],
        dictionary: dictionary.exportLayout(),
      };
    },
    async prepare(query) {
      if (fromStore === undefined) return;
      const { checked, stored } = fromStore;
      const needed = new Set<number>();
      for (const term of countQueryTerms(query).keys()) {
        for (const { termId } of expandOnce(term)) if (checked[termId] === 0) needed.add(termId);
      }
      if (needed.size === 0) return;
      const termIds = [...needed].sort((a, b) => a - b);
      await readTerms(stored, termIds);
      for (const termId of termIds) {
        checkTerm(termId);
        checked[termId] = 1;
      }
    },
    search(query, limit) {
      const occurrences = countQueryTerms(query);
      if (occurrences.size === 0 || limit <= 0 || documentCount === 0) return [];
      beginPass(pass);
      let queryTermIndex = 0;
      for (const [term, count] of occurrences) {
        for (const { termId, weight } of expandOnce(term)) {
          if (fromStore !== undefined && fromStore.checked[termId] === 0)
            throw new Error('Keyword index: searched before its postings were read');
          for (const field of fields)
            accumulateTerm(field, termId, weight * count, queryTermIndex, pass);
        }
        queryTermIndex++;
      }
      const { scores, matchedTerms, touched, touchedCount } = pass;
      const candidates = touched.subarray(0, touchedCount);
      // MiniSearch's "quality": a chunk matching more of the query terms ranks higher.
      for (const doc of candidates)
        scores[doc] = (scores[doc] as number) * (matchedTerms[doc] as number);
      return Array.from(selectTopRows(scores, limit, candidates), (doc) => ({
        id: ids[doc] as string,
        score: scores[doc] as number,
        row: doc,
      }));
    },
  };
}

/** The terms in order, packed as a segment holds them (joined, so the string is flat). */
function packTerms(terms: Iterable<string>): string {
  return Array.from(terms, (term) => term + TERM_END).join('');
}

/** How many terms packed terms hold. */
export function countTerms(packed: string): number {
  let count = 0;
  for (let at = packed.indexOf(TERM_END); at !== -1; at = packed.indexOf(TERM_END, at + 1)) count++;
  return count;
}

/**
 * Numbers distinct terms in first-seen order, reading them straight from segments' packed terms:
 * an open-addressing table keyed by a hash of each term's code units, computed in the same pass
 * that finds where the term ends. The millions of terms a large project's segments hold make no
 * string each; only a term seen for the first time is copied out.
 */
interface TermInterner {
  /** The distinct terms so far; a term's id is its position. */
  readonly terms: string[];
  /**
   * Gives the segment's terms `from..to`, which start at position `start` of its packed terms,
   * their ids in `map`; returns the position just past the last of them.
   */
  internRun(packed: string, start: number, from: number, to: number, map: Int32Array): number;
}

const EMPTY_SLOT = -1;
const TERM_END_UNIT = TERM_END.charCodeAt(0);
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

function createTermInterner(): TermInterner {
  const terms: string[] = [];
  // `hashes[id]` is term id's hash; both arrays grow together, so ids always fit.
  let hashes = new Int32Array(2_048);
  let slots = new Int32Array(2_048).fill(EMPTY_SLOT);
  let mask = slots.length - 1;

  function grow(): void {
    const larger = new Int32Array(slots.length * 2).fill(EMPTY_SLOT);
    const largerMask = larger.length - 1;
    for (let id = 0; id < terms.length; id++) {
      let slot = (hashes[id] as number) & largerMask;
      while (larger[slot] !== EMPTY_SLOT) slot = (slot + 1) & largerMask;
      larger[slot] = id;
    }
    slots = larger;
    mask = largerMask;
    const moreHashes = new Int32Array(larger.length);
    moreHashes.set(hashes);
    hashes = moreHashes;
  }

  /** The id of `packed[start..end)`, whose hash is `hash`; new if it was not seen before. */
  function intern(packed: string, start: number, end: number, hash: number): number {
    const length = end - start;
    let slot = hash & mask;
    for (;;) {
      const id = slots[slot] as number;
      if (id === EMPTY_SLOT) break;
      const term = terms[id] as string;
      if (hashes[id] === hash && term.length === length) {
        let same = 0;
        while (same < length && term.charCodeAt(same) === packed.charCodeAt(start + same)) same++;
        if (same === length) return id;
      }
      slot = (slot + 1) & mask;
    }
    const id = terms.length;
    terms.push(packed.slice(start, end));
    slots[slot] = id;
    hashes[id] = hash;
    // At most half full, so probes stay short and an empty slot always ends them.
    if (terms.length * 2 > slots.length) grow();
    return id;
  }

  return {
    terms,
    internRun(packed, start, from, to, map) {
      let ref = from;
      let termStart = start;
      // FNV-1a over the term's UTF-16 code units.
      let hash = FNV_OFFSET;
      for (let at = start; ref < to; at++) {
        if (at >= packed.length)
          throw new Error('Keyword index: a segment holds fewer terms than it counts');
        const unit = packed.charCodeAt(at);
        if (unit !== TERM_END_UNIT) {
          hash = Math.imul(hash ^ unit, FNV_PRIME);
          continue;
        }
        map[ref++] = intern(packed, termStart, at, hash);
        termStart = at + 1;
        hash = FNV_OFFSET;
      }
      return termStart;
    },
  };
}

/** One field's term counts per document, in the segment's own term numbering. */
function countField(
  documents: readonly KeywordDocument[],
  valueOf: (document: KeywordDocument) => string,
  termRefs: Map<string, number>,
): SegmentField {
  const docStarts = new Uint32Array(documents.length + 1);
  const lengths = new Uint16Array(documents.length);
  const refs: number[] = [];
  const counts: number[] = [];
  let mostCount = 0;
  const frequencies = new Map<number, number>();
  documents.forEach((document, doc) => {
    const tokens = tokenize(valueOf(document));
    lengths[doc] = Math.min(new Set(tokens).size, 0xffff);
    frequencies.clear();
    for (const token of tokens) {
      const term = normalizeTerm(token);
      if (!term) continue;
      let ref = termRefs.get(term);
      if (ref === undefined) {
        ref = termRefs.size;
        termRefs.set(term, ref);
      }
      frequencies.set(ref, (frequencies.get(ref) ?? 0) + 1);
    }
    for (const [ref, frequency] of frequencies) {
      refs.push(ref);
      const count = Math.min(frequency, 0xffff);
      counts.push(count);
      if (count > mostCount) mostCount = count;
    }
    docStarts[doc + 1] = refs.length;
  });
  return {
    docStarts,
    termRefs: termRefs.size <= 0x10000 ? Uint16Array.from(refs) : Uint32Array.from(refs),
    frequencies: mostCount <= 0xff ? Uint8Array.from(counts) : Uint16Array.from(counts),
    lengths,
  };
}

/**
 * One field's postings over every segment: a counting sort by global term id, which keeps each
 * term's documents in ascending order (segments in order, documents in order within each).
 */
function mergeFieldPostings(
  segments: readonly KeywordSegment[],
  field: number,
  localToGlobal: readonly Int32Array[],
  termCount: number,
): KeywordFieldState {
  const parts = segments.map((segment) => segment.fields[field] as SegmentField);
  const starts = new Int32Array(termCount + 1);
  let postingCount = 0;
  let documentCount = 0;
  parts.forEach((part, index) => {
    const map = localToGlobal[index] as Int32Array;
    for (const ref of part.termRefs) {
      const termId = map[ref] as number;
      starts[termId + 1] = (starts[termId + 1] as number) + 1;
    }
    postingCount += part.termRefs.length;
    documentCount += part.lengths.length;
  });
  for (let termId = 0; termId < termCount; termId++)
    starts[termId + 1] = (starts[termId + 1] as number) + (starts[termId] as number);
  const next = starts.slice(0, termCount);
  const docs = new Int32Array(postingCount);
  const termFrequencies = new Uint16Array(postingCount);
  const lengths = new Uint16Array(documentCount);
  let docOffset = 0;
  parts.forEach((part, index) => {
    const map = localToGlobal[index] as Int32Array;
    const { docStarts, termRefs, frequencies } = part;
    const segmentDocs = part.lengths.length;
    lengths.set(part.lengths, docOffset);
    for (let doc = 0; doc < segmentDocs; doc++) {
      for (let at = docStarts[doc] as number, end = docStarts[doc + 1] as number; at < end; at++) {
        const termId = map[termRefs[at] as number] as number;
        const to = next[termId] as number;
        next[termId] = to + 1;
        docs[to] = docOffset + doc;
        termFrequencies[to] = frequencies[at] as number;
      }
    }
    docOffset += segmentDocs;
  });
  return { ...encodePostings(starts, docs, termFrequencies), lengths };
}

/**
 * Term-ordered postings (term t's documents `docs[starts[t]..starts[t + 1])`, ascending, with
 * their counts) as the varint bytes a field keeps, with each term's byte offset.
 */
function encodePostings(
  starts: Int32Array,
  docs: Int32Array,
  termFrequencies: Uint16Array,
): { starts: Int32Array; postings: Uint8Array } {
  const termCount = starts.length - 1;
  const byteStarts = new Int32Array(starts.length);
  for (let term = 0; term < termCount; term++) {
    const from = starts[term] as number;
    const to = starts[term + 1] as number;
    let bytes = from === to ? 0 : varintLength(to - from);
    let previous = -1;
    for (let at = from; at < to; at++) {
      const doc = docs[at] as number;
      bytes += varintLength(doc - previous - 1) + varintLength(termFrequencies[at] as number);
      previous = doc;
    }
    byteStarts[term + 1] = (byteStarts[term] as number) + bytes;
  }
  const postings = new Uint8Array(byteStarts[termCount] as number);
  let end = 0;
  for (let term = 0; term < termCount; term++) {
    const from = starts[term] as number;
    const to = starts[term + 1] as number;
    if (from === to) continue;
    end = writeVarint(postings, end, to - from);
    let previous = -1;
    for (let at = from; at < to; at++) {
      const doc = docs[at] as number;
      const gap = doc - previous - 1;
      // Most gaps and counts take one byte: written here without a call.
      if (gap < 0x80) postings[end++] = gap;
      else end = writeVarint(postings, end, gap);
      const frequency = termFrequencies[at] as number;
      if (frequency < 0x80) postings[end++] = frequency;
      else end = writeVarint(postings, end, frequency);
      previous = doc;
    }
  }
  return { starts: byteStarts, postings };
}

function measureAverageLength(lengths: Uint16Array): number {
  let total = 0;
  for (const length of lengths) total += length;
  return lengths.length === 0 ? 0 : total / lengths.length;
}

/** Adds one expanded term's BM25 contribution in one field to every document holding it. */
function accumulateTerm(
  field: FieldPostings,
  termId: number,
  weight: number,
  queryTermIndex: number,
  pass: ScoringPass,
): void {
  // A term first seen in a later field has no range in the earlier ones.
  if (termId + 1 >= field.starts.length) return;
  let at = field.starts[termId] as number;
  if (at === field.starts[termId + 1]) return;
  const { postings, lengths } = field;
  // The varints are read inline: this loop is most of a keyword search's time.
  let byte = postings[at++] as number;
  let matching = byte & 0x7f;
  for (let scale = 0x80; (byte & 0x80) !== 0; scale *= 0x80) {
    byte = postings[at++] as number;
    matching += (byte & 0x7f) * scale;
  }
  const documentCount = lengths.length;
  const inverseFrequency = Math.log(1 + (documentCount - matching + 0.5) / (matching + 0.5));
  const factor = weight * field.boost * inverseFrequency;
  const lengthNorm = field.averageLength === 0 ? 0 : BM25_B / field.averageLength;
  const { scores, matchedTerms, lastQueryTerm, stamps, touched, stamp } = pass;
  let touchedCount = pass.touchedCount;
  let doc = -1;
  for (let posting = 0; posting < matching; posting++) {
    byte = postings[at++] as number;
    let gap = byte & 0x7f;
    for (let scale = 0x80; (byte & 0x80) !== 0; scale *= 0x80) {
      byte = postings[at++] as number;
      gap += (byte & 0x7f) * scale;
    }
    doc += gap + 1;
    byte = postings[at++] as number;
    let frequency = byte & 0x7f;
    for (let scale = 0x80; (byte & 0x80) !== 0; scale *= 0x80) {
      byte = postings[at++] as number;
      frequency += (byte & 0x7f) * scale;
    }
    const saturation =
      (frequency * (BM25_K + 1)) /
      (frequency + BM25_K * (1 - BM25_B + (lengths[doc] as number) * lengthNorm));
    if (stamps[doc] !== stamp) {
      stamps[doc] = stamp;
      scores[doc] = 0;
      matchedTerms[doc] = 0;
      lastQueryTerm[doc] = -1;
      touched[touchedCount++] = doc;
    }
    scores[doc] = (scores[doc] as number) + factor * (BM25_D + saturation);
    if (lastQueryTerm[doc] !== queryTermIndex) {
      lastQueryTerm[doc] = queryTermIndex;
      matchedTerms[doc] = (matchedTerms[doc] as number) + 1;
    }
  }
  pass.touchedCount = touchedCount;
}

/**
 * Per-document arrays reused by every search. The pass stamp marks the documents the current
 * search has touched, so nothing is cleared between searches and nothing is allocated per
 * document.
 */
interface ScoringPass {
  scores: Float64Array;
  /** How many distinct query terms matched each touched document. */
  matchedTerms: Uint16Array;
  lastQueryTerm: Int32Array;
  stamps: Uint32Array;
  touched: Int32Array;
  touchedCount: number;
  stamp: number;
}

function createScoringPass(documentCount: number): ScoringPass {
  return {
    scores: new Float64Array(documentCount),
    matchedTerms: new Uint16Array(documentCount),
    lastQueryTerm: new Int32Array(documentCount),
    stamps: new Uint32Array(documentCount),
    touched: new Int32Array(documentCount),
    touchedCount: 0,
    stamp: 0,
  };
}

function beginPass(pass: ScoringPass): void {
  if (pass.stamp === 0xffffffff) {
    pass.stamps.fill(0);
    pass.stamp = 0;
  }
  pass.stamp++;
  pass.touchedCount = 0;
}
