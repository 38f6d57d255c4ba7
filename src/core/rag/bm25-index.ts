/**
 * Keyword ranking (BM25 as MiniSearch scores it). MiniSearch is pure JavaScript with no DOM or
 * I/O, so it may live in the core like gpt-tokenizer.
 */
import MiniSearch from 'minisearch';

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
const FUZZY_RATIO = 0.15;

/** Words too common to say anything about relevance. */
const STOP_WORDS = new Set(
  'a an and are as at be by for from has have how i in is it its of on or that the this to was were what when where which who why will with you your does do did can'.split(
    ' ',
  ),
);

export function normalizeTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return STOP_WORDS.has(lower) ? null : lower;
}

export interface KeywordIndex {
  search(query: string, limit: number): RankedId[];
}

export function createKeywordIndex(documents: readonly KeywordDocument[]): KeywordIndex {
  const index = new MiniSearch<KeywordDocument>({
    fields: ['text', 'title'],
    processTerm: normalizeTerm,
    searchOptions: {
      boost: { title: TITLE_BOOST },
      combineWith: 'OR',
      prefix: (term) => term.length > 3,
      fuzzy: (term) => (term.length > 5 ? FUZZY_RATIO : false),
    },
  });
  index.addAll(documents);
  return {
    search(query, limit) {
      return index
        .search(query)
        .slice(0, limit)
        .map((hit) => ({ id: String(hit.id), score: hit.score }));
    },
  };
}
