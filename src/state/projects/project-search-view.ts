/**
 * Pure helpers behind the project screen's search results: the passage's excerpt with the query
 * words marked (as plain text segments the component wraps in <mark>, never HTML), where the
 * passage sits, and how the search ran (keywords alone, or hybrid, and why).
 */
import { normalizeTerm } from '../../core/rag/bm25-index';
import { parseChunkLocation } from '../../core/rag/chunk-location';
import type { KeywordOnlyReason, ProjectSearchResult } from '../../workers/agent/agent.api';

export interface TextSegment {
  text: string;
  isMatch: boolean;
}

/** About four lines of a result: enough to judge the passage; the viewer shows all of it. */
export const EXCERPT_CHARS = 320;

/**
 * Words are runs of letters, digits and marks. The keyword index splits on spaces and
 * punctuation only, so it may see "script>" where a person sees the word "script": marking
 * the word reads better, and every word the index matched is still marked.
 */
const SEPARATORS = /[^\p{L}\p{N}\p{M}]+/u;
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
/** The index matches a query word as a prefix of a passage word only when it is this long. */
const MIN_PREFIX_CHARS = 4;
/** How far an excerpt's edge may move to land between words. */
const EDGE_SLACK_CHARS = 24;

/** The query's words as the keyword index reads them: lower case, stop words dropped. */
export function queryTerms(query: string): string[] {
  const terms = query.split(SEPARATORS).flatMap((word) => {
    const term = word === '' ? null : normalizeTerm(word);
    return term === null ? [] : [term];
  });
  return [...new Set(terms)];
}

/** Character ranges of the passage's words that a query word matches (whole, or as a prefix). */
export function findTermMatches(
  text: string,
  terms: readonly string[],
): Array<{ start: number; end: number }> {
  if (terms.length === 0) return [];
  const matches: Array<{ start: number; end: number }> = [];
  for (const found of text.matchAll(WORD)) {
    const word = found[0].toLowerCase();
    const isMatch = terms.some(
      (term) => word === term || (term.length >= MIN_PREFIX_CHARS && word.startsWith(term)),
    );
    if (isMatch) matches.push({ start: found.index, end: found.index + found[0].length });
  }
  return matches;
}

/**
 * The passage cut to about `maxChars` around its first matching word (whole when short enough),
 * between words, with "…" where it was cut, split into marked and unmarked segments.
 */
export function buildExcerpt(text: string, query: string, maxChars = EXCERPT_CHARS): TextSegment[] {
  const matches = findTermMatches(text, queryTerms(query));
  let start = 0;
  let end = text.length;
  if (text.length > maxChars) {
    // The first match sits a third of the way in, so the words before it give some context.
    start = Math.max(0, (matches[0]?.start ?? 0) - Math.floor(maxChars / 3));
    end = Math.min(text.length, start + maxChars);
    start = Math.max(0, end - maxChars);
    if (start > 0) start = snapForward(text, start);
    if (end < text.length) end = snapBackward(text, end);
  }
  const segments: TextSegment[] = [];
  const push = (part: string, isMatch: boolean): void => {
    if (part !== '') segments.push({ text: part, isMatch });
  };
  if (start > 0) push('…', false);
  let cursor = start;
  for (const match of matches) {
    if (match.end <= start || match.start >= end) continue;
    const from = Math.max(match.start, cursor);
    const to = Math.min(match.end, end);
    push(text.slice(cursor, from), false);
    push(text.slice(from, to), true);
    cursor = to;
  }
  push(text.slice(cursor, end), false);
  if (end < text.length) push('…', false);
  return segments;
}

function snapForward(text: string, index: number): number {
  const space = text.slice(index, index + EDGE_SLACK_CHARS).search(/\s/);
  return space === -1 ? index : index + space + 1;
}

function snapBackward(text: string, index: number): number {
  const space = text.slice(Math.max(0, index - EDGE_SLACK_CHARS), index).search(/\s\S*$/);
  return space === -1 ? index : Math.max(0, index - EDGE_SLACK_CHARS) + space;
}

/**
 * Where the passage sits, for people: "Page 3 · Setup › Install". The character range stays in
 * the stored location for the viewer; null when the passage has neither page nor section.
 */
export function describePassageLocation(location: string): string | null {
  const position = parseChunkLocation(location);
  if (position === undefined) return location.trim() === '' ? null : location;
  const parts = [
    ...(position.page === null ? [] : [`Page ${position.page}`]),
    ...(position.headingPath.length === 0 ? [] : [position.headingPath.join(' › ')]),
  ];
  return parts.length === 0 ? null : parts.join(' · ');
}

const KEYWORD_ONLY_BECAUSE: Record<Exclude<KeywordOnlyReason, 'model_unavailable'>, string> = {
  no_passages: 'the files have no readable text yet',
  not_embedded: 'the passages have no embeddings from the current model yet',
};

/** How the search ran, and why it used keywords alone when it did. */
export function describeRetrieval(
  result: Pick<ProjectSearchResult, 'mode' | 'keywordOnlyReason'>,
  isOnline: boolean,
): string {
  if (result.mode === 'hybrid') return 'Hybrid search: keywords (BM25) and embeddings.';
  const reason = result.keywordOnlyReason ?? 'not_embedded';
  const because =
    reason === 'model_unavailable'
      ? isOnline
        ? 'the embedding model could not be loaded (not stored in this browser, and downloads are off or failed)'
        : 'the embedding model is not available offline'
      : KEYWORD_ONLY_BECAUSE[reason];
  return `Keyword search (BM25) only: ${because}.`;
}
