import fc from 'fast-check';
import SearchableMap from 'minisearch/SearchableMap';
import { describe, expect, it } from 'vitest';
import { createTermDictionary } from '../../../../src/core/rag/term-dictionary';

/** The textbook edit matrix over UTF-16 code units: the reference for every fuzzy lookup. */
function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, column) => column);
  for (let row = 1; row <= a.length; row++) {
    const current = [row];
    for (let column = 1; column <= b.length; column++) {
      current[column] = Math.min(
        (previous[column - 1] as number) + (a[row - 1] === b[column - 1] ? 0 : 1),
        (previous[column] as number) + 1,
        (current[column - 1] as number) + 1,
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

// Few letters, so near spellings are common; "A" and "!" share "a"'s class (unit mod 32), "é"
// and "中" are past ASCII.
const unit = fc.constantFrom('a', 'b', 'c', 'A', '!', 'é', '中');
const edit = fc.tuple(fc.constantFrom('insert', 'delete', 'replace'), fc.nat(), unit);

/** A word and words a few edits away from it, some short, some longer than 32 units. */
const family = fc
  .tuple(
    fc.oneof(
      fc.string({ unit, minLength: 1, maxLength: 9 }),
      fc.string({ unit, minLength: 28, maxLength: 40 }),
    ),
    fc.array(fc.array(edit, { maxLength: 4 }), { maxLength: 6 }),
  )
  .map(([base, variants]) => [
    base,
    ...variants.map((edits) =>
      edits.reduce((word, [kind, at, letter]) => {
        const position = word.length === 0 ? 0 : at % (word.length + (kind === 'insert' ? 1 : 0));
        if (kind === 'insert') return word.slice(0, position) + letter + word.slice(position);
        if (kind === 'delete') return word.slice(0, position) + word.slice(position + 1);
        return word.slice(0, position) + letter + word.slice(position + 1);
      }, base),
    ),
  ]);

const dictionaryAndQuery = fc.array(family, { minLength: 1, maxLength: 8 }).chain((families) => {
  const terms = [...new Set(families.flat().filter((term) => term.length > 0))];
  // Several lookups in one dictionary: nothing one leaves behind may change the next.
  return fc.tuple(
    fc.constant(terms),
    fc.array(fc.oneof(fc.constantFrom(...families.flat()), fc.string({ unit, maxLength: 36 })), {
      minLength: 1,
      maxLength: 3,
    }),
    fc.integer({ min: 1, max: 6 }),
  );
});

describe('createTermDictionary', () => {
  it('finds exactly the terms within the edit distance, each with its distance', () => {
    fc.assert(
      fc.property(dictionaryAndQuery, ([terms, queries, maxDistance]) => {
        const dictionary = createTermDictionary(terms);
        for (const query of queries) {
          const found = new Map<string, number>();
          dictionary.forEachWithin(query, maxDistance, (term, termId, distance) => {
            expect(terms[termId]).toBe(term);
            expect(found.has(term)).toBe(false);
            found.set(term, distance);
          });
          const expected = new Map(
            terms
              .map((term) => [term, levenshtein(query, term)] as const)
              .filter(([, distance]) => distance <= maxDistance),
          );
          expect(found).toEqual(expected);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('finds the same fuzzy terms as the MiniSearch radix tree it replaces', () => {
    fc.assert(
      fc.property(dictionaryAndQuery, ([terms, queries, maxDistance]) => {
        const tree = new SearchableMap<number>();
        terms.forEach((term, termId) => tree.set(term, termId));
        const dictionary = createTermDictionary(terms);
        for (const query of queries) {
          const found = new Map<string, [number, number]>();
          dictionary.forEachWithin(query, maxDistance, (term, termId, distance) =>
            found.set(term, [termId, distance]),
          );
          expect(found).toEqual(new Map(tree.fuzzyGet(query, maxDistance)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('lists the terms starting with a prefix in code-unit order', () => {
    fc.assert(
      fc.property(dictionaryAndQuery, ([terms, [query = '']]) => {
        const prefix = query.slice(0, 3);
        const found: string[] = [];
        createTermDictionary(terms).forEachWithPrefix(prefix, (term, termId) => {
          expect(terms[termId]).toBe(term);
          found.push(term);
        });
        const expected = terms
          .filter((term) => term.startsWith(prefix))
          .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(found).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('looks a term up by its id and refuses the same term twice', () => {
    const dictionary = createTermDictionary(['router', 'rooter', 'kernel']);
    expect(dictionary.get('rooter')).toBe(1);
    expect(dictionary.get('root')).toBeUndefined();
    expect(() => createTermDictionary(['same', 'same'])).toThrow(/duplicate term/);
  });
});
