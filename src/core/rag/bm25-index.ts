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
import { createTermDictionary } from './term-dictionary';
import { selectTopRows } from './top-k';

export interface RankedId {
  id: string;
  score: number;
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
}

/** One field's postings in compressed-row form: term t's documents are `docs[starts[t]..starts[t+1])`. */
interface FieldPostings {
  boost: number;
  starts: Int32Array;
  docs: Int32Array;
  termFrequencies: Uint16Array;
  /** MiniSearch's field length: distinct raw tokens in the field. */
  lengths: Uint16Array;
  averageLength: number;
}

/** A term the query reaches (exactly, by prefix or fuzzily) and how much it counts. */
interface Expansion {
  termId: number;
  weight: number;
}

export function createKeywordIndex(documents: readonly KeywordDocument[]): KeywordIndex {
  const ids = documents.map((document) => document.id);
  if (new Set(ids).size !== ids.length) throw new Error('Keyword index: duplicate document id');
  const termIds = new Map<string, number>();
  const fields = [
    buildFieldPostings(documents, (document) => document.text, 1, termIds),
    buildFieldPostings(documents, (document) => document.title, TITLE_BOOST, termIds),
  ];
  // Ids were given in order of first sight, so the keys are in id order.
  const dictionary = createTermDictionary([...termIds.keys()]);
  const pass = createScoringPass(documents.length);

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

  return {
    size: documents.length,
    search(query, limit) {
      // Repeated query terms count once more each, as MiniSearch's OR of per-term results does.
      const occurrences = new Map<string, number>();
      for (const token of tokenize(query)) {
        const term = normalizeTerm(token);
        if (term) occurrences.set(term, (occurrences.get(term) ?? 0) + 1);
      }
      if (occurrences.size === 0 || limit <= 0 || documents.length === 0) return [];
      beginPass(pass);
      let queryTermIndex = 0;
      for (const [term, count] of occurrences) {
        for (const { termId, weight } of expand(term)) {
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
      }));
    },
  };
}

function buildFieldPostings(
  documents: readonly KeywordDocument[],
  valueOf: (document: KeywordDocument) => string,
  boost: number,
  termIds: Map<string, number>,
): FieldPostings {
  const lengths = new Uint16Array(documents.length);
  // (term, doc, frequency) triples in document order, then grouped by term below.
  const tripleTerms: number[] = [];
  const tripleDocs: number[] = [];
  const tripleFrequencies: number[] = [];
  const frequencies = new Map<number, number>();
  let totalLength = 0;
  documents.forEach((document, doc) => {
    const tokens = tokenize(valueOf(document));
    const length = Math.min(new Set(tokens).size, 0xffff);
    lengths[doc] = length;
    totalLength += length;
    frequencies.clear();
    for (const token of tokens) {
      const term = normalizeTerm(token);
      if (!term) continue;
      let termId = termIds.get(term);
      if (termId === undefined) {
        termId = termIds.size;
        termIds.set(term, termId);
      }
      frequencies.set(termId, (frequencies.get(termId) ?? 0) + 1);
    }
    for (const [termId, frequency] of frequencies) {
      tripleTerms.push(termId);
      tripleDocs.push(doc);
      tripleFrequencies.push(frequency);
    }
  });
  // Counting sort by term keeps each term's documents in ascending order. Terms first seen in a
  // later field get an empty range here; the starts array is sized when the search needs it.
  const termCount = termIds.size;
  const starts = new Int32Array(termCount + 1);
  for (const termId of tripleTerms) starts[termId + 1] = (starts[termId + 1] as number) + 1;
  for (let termId = 0; termId < termCount; termId++)
    starts[termId + 1] = (starts[termId + 1] as number) + (starts[termId] as number);
  const next = starts.slice(0, termCount);
  const docs = new Int32Array(tripleTerms.length);
  const termFrequencies = new Uint16Array(tripleTerms.length);
  tripleTerms.forEach((termId, index) => {
    const at = next[termId] as number;
    next[termId] = at + 1;
    docs[at] = tripleDocs[index] as number;
    termFrequencies[at] = Math.min(tripleFrequencies[index] as number, 0xffff);
  });
  return {
    boost,
    starts,
    docs,
    termFrequencies,
    lengths,
    averageLength: documents.length === 0 ? 0 : totalLength / documents.length,
  };
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
  const start = field.starts[termId] as number;
  const end = field.starts[termId + 1] as number;
  if (start === end) return;
  const matching = end - start;
  const documentCount = field.lengths.length;
  const inverseFrequency = Math.log(1 + (documentCount - matching + 0.5) / (matching + 0.5));
  const factor = weight * field.boost * inverseFrequency;
  const lengthNorm = field.averageLength === 0 ? 0 : BM25_B / field.averageLength;
  const { docs, termFrequencies, lengths } = field;
  const { scores, matchedTerms, lastQueryTerm, stamps, touched, stamp } = pass;
  let touchedCount = pass.touchedCount;
  for (let at = start; at < end; at++) {
    const doc = docs[at] as number;
    const frequency = termFrequencies[at] as number;
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
