import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { createKeywordIndex, normalizeTerm, type KeywordDocument } from '../../../../src/core/rag';

/** MiniSearch configured as the keyword index used to be: the reference for its scores. */
function createMiniSearchReference(
  documents: readonly KeywordDocument[],
): MiniSearch<KeywordDocument> {
  const reference = new MiniSearch<KeywordDocument>({
    fields: ['text', 'title'],
    processTerm: normalizeTerm,
    searchOptions: {
      boost: { title: 1.5 },
      combineWith: 'OR',
      prefix: (term) => term.length > 3,
      fuzzy: (term) => (term.length > 5 ? 0.15 : false),
    },
  });
  reference.addAll(documents);
  return reference;
}

// Words that are prefixes of each other and one edit apart, so prefix and fuzzy matches happen.
const WORDS = (
  'install installation installer instal router routers rooter password passwords passward kernel kernels the ' +
  'and bread breads flour Install schema schemas migration migrations budget x ab'
).split(' ');
const word = fc.constantFrom(...WORDS);
const separator = fc.constantFrom(' ', ', ', '. ', '\n', ' (', ') ');
const phrase = (maxWords: number) =>
  fc
    .array(fc.tuple(word, separator), { minLength: 0, maxLength: maxWords })
    .map((pairs) => pairs.map(([w, s]) => w + s).join(''));
const documents = fc
  .array(fc.tuple(phrase(30), phrase(3)), { minLength: 1, maxLength: 40 })
  .map((rows) => rows.map(([text, title], i): KeywordDocument => ({ id: `d${i}`, text, title })));

describe('createKeywordIndex', () => {
  it('scores every document as MiniSearch does, and returns the best first', () => {
    fc.assert(
      fc.property(documents, phrase(5), fc.integer({ min: 1, max: 50 }), (docs, query, limit) => {
        const expected = createMiniSearchReference(docs).search(query);
        const actual = createKeywordIndex(docs).search(query, limit);
        const expectedScore = new Map(expected.map((hit) => [String(hit.id), hit.score]));
        expect(actual.length).toBe(Math.min(limit, expected.length));
        actual.forEach((hit, rank) => {
          // Same ranking up to the order of equal scores, and the same score for each id.
          expect(hit.score).toBeCloseTo(expected[rank]?.score ?? Number.NaN, 9);
          expect(hit.score).toBeCloseTo(expectedScore.get(hit.id) ?? Number.NaN, 9);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('finds a longer word by its prefix and a misspelt word by a near spelling', () => {
    const index = createKeywordIndex([
      { id: 'prefix', text: 'run the installation wizard', title: 'setup.md' },
      { id: 'fuzzy', text: 'reset the router password', title: 'network.md' },
      { id: 'other', text: 'flour water salt', title: 'bread.md' },
    ]);
    expect(index.search('install', 5).map((hit) => hit.id)).toEqual(['prefix']);
    expect(index.search('passward', 5).map((hit) => hit.id)).toEqual(['fuzzy']);
    expect(index.search('the and of', 5)).toEqual([]);
  });

  it('ranks a chunk matching more of the query terms above one repeating a single term', () => {
    const index = createKeywordIndex([
      { id: 'one-term', text: 'kernel kernel kernel kernel notes', title: 'a' },
      { id: 'both-terms', text: 'kernel compiler notes and more words here', title: 'b' },
    ]);
    expect(index.search('kernel compiler', 2).map((hit) => hit.id)).toEqual([
      'both-terms',
      'one-term',
    ]);
  });

  it('refuses two documents with the same id', () => {
    expect(() =>
      createKeywordIndex([
        { id: 'same', text: 'a', title: 'a' },
        { id: 'same', text: 'b', title: 'b' },
      ]),
    ).toThrow(/duplicate document id/);
  });
});
