import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildExcerpt,
  describePassageLocation,
  describeRetrieval,
  EXCERPT_CHARS,
  queryTerms,
} from '../../../../src/state/projects/project-search-view';

const marked = (segments: ReturnType<typeof buildExcerpt>): string[] =>
  segments.filter((segment) => segment.isMatch).map((segment) => segment.text);
const joined = (segments: ReturnType<typeof buildExcerpt>): string =>
  segments.map((segment) => segment.text).join('');

describe('queryTerms', () => {
  it('reads the query as the keyword index does: lower case, no stop words, no punctuation, once each', () => {
    expect(queryTerms('When does the Lisbon office open? Lisbon!')).toEqual([
      'lisbon',
      'office',
      'open',
    ]);
    expect(queryTerms('  ')).toEqual([]);
  });
});

describe('buildExcerpt', () => {
  it('marks whole words and the longer words a query word begins, never the middle of a word', () => {
    const segments = buildExcerpt('Grinders grind; the regrind team drinks tea.', 'grind tea');
    expect(marked(segments)).toEqual(['Grinders', 'grind', 'tea']);
    expect(joined(segments)).toBe('Grinders grind; the regrind team drinks tea.');
  });

  it('keeps markup in the passage as plain text segments', () => {
    const segments = buildExcerpt(
      'Run <script>alert(1)</script> before the script ends.',
      'script',
    );
    expect(joined(segments)).toBe('Run <script>alert(1)</script> before the script ends.');
    expect(marked(segments)).toEqual(['script', 'script', 'script']);
  });

  it('cuts a long passage around its first match, between words, with ellipses where it was cut', () => {
    const filler = 'plain words about nothing in particular '.repeat(30);
    const text = `${filler}The Lisbon office opens in March. ${filler}`;
    const segments = buildExcerpt(text, 'Lisbon');
    const excerpt = joined(segments);
    expect(segments[0]).toEqual({ text: '…', isMatch: false });
    expect(segments.at(-1)).toEqual({ text: '…', isMatch: false });
    expect(excerpt.length).toBeLessThanOrEqual(EXCERPT_CHARS + 2);
    expect(excerpt).toContain('The Lisbon office opens in March.');
    expect(excerpt.slice(1, -1)).toMatch(/^\S.*\S$/s);
    expect(text).toContain(excerpt.slice(1, -1));
    expect(marked(segments)).toEqual(['Lisbon']);
  });

  it('shows the start of a long passage when no word matches (a match by meaning)', () => {
    const text = 'A passage found by its meaning alone. '.repeat(20);
    const segments = buildExcerpt(text, 'unrelated');
    expect(marked(segments)).toEqual([]);
    expect(joined(segments).startsWith('A passage found')).toBe(true);
  });

  it('always yields a piece of the passage, and marks only words the query names', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 800 }), fc.string({ maxLength: 40 }), (text, query) => {
        const segments = buildExcerpt(text, query, 120);
        const body = joined(segments).replace(/^…/, '').replace(/…$/, '');
        expect(text).toContain(body);
        const terms = queryTerms(query);
        for (const word of marked(segments)) {
          const lower = word.toLowerCase();
          expect(
            terms.some((term) => lower === term || (term.length >= 4 && lower.startsWith(term))),
          ).toBe(true);
        }
      }),
    );
  });
});

describe('describePassageLocation', () => {
  it('names the page and section, leaving the character range to the viewer', () => {
    expect(describePassageLocation('p. 3 · Setup › Install · chars 1200–1800')).toBe(
      'Page 3 · Setup › Install',
    );
    expect(describePassageLocation('Brewing coffee › Water · chars 230–600')).toBe(
      'Brewing coffee › Water',
    );
    expect(describePassageLocation('p. 2 · chars 0–90')).toBe('Page 2');
    expect(describePassageLocation('chars 0–90')).toBeNull();
    expect(describePassageLocation('')).toBeNull();
  });
});

describe('describeRetrieval', () => {
  it('says how the search ran and why it used keywords alone', () => {
    expect(describeRetrieval({ mode: 'hybrid', keywordOnlyReason: null }, true)).toBe(
      'Hybrid search: keywords (BM25) and embeddings.',
    );
    expect(describeRetrieval({ mode: 'keyword', keywordOnlyReason: 'not_embedded' }, true)).toBe(
      'Keyword search (BM25) only: the passages have no embeddings from the current model yet.',
    );
    expect(
      describeRetrieval({ mode: 'keyword', keywordOnlyReason: 'model_unavailable' }, false),
    ).toBe('Keyword search (BM25) only: the embedding model is not available offline.');
    expect(
      describeRetrieval({ mode: 'keyword', keywordOnlyReason: 'model_unavailable' }, true),
    ).toContain('the embedding model could not be loaded');
    expect(
      describeRetrieval({ mode: 'keyword', keywordOnlyReason: 'no_passages' }, true),
    ).toContain('no readable text');
  });
});
