import fc from 'fast-check';
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import {
  createKeywordIndex,
  DamagedIndexError,
  normalizeTerm,
  openKeywordIndex,
  type KeywordDocument,
  type KeywordIndexState,
  type StoredKeywordIndexState,
} from '../../../../src/core/rag';
import { keepInStore } from './in-store';

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

  it('scores as MiniSearch does where postings lie far apart and counts pass a byte, opened from its state too', async () => {
    // 70,000 chunks: "needle" in a few of them, tens of thousands apart (gaps of three varint
    // bytes) and up to 300 times (a count of two bytes); "common" in every third chunk.
    const placed = new Map([[0, 1], [129, 2], [16_500, 300], [16_501, 1], [69_999, 130]]);
    const docs = Array.from({ length: 70_000 }, (_, at): KeywordDocument => ({
      id: `c${at}`,
      text: `${at % 3 === 0 ? 'common ' : ''}filler${at % 7} ${'needle '.repeat(placed.get(at) ?? 0)}`,
      title: at === 129 ? 'needle.md' : 'notes.md',
    }));
    const reference = createMiniSearchReference(docs);
    const index = createKeywordIndex(docs);
    const restored = openKeywordIndex(docs.map((doc) => doc.id), leaveInStore(structuredClone(index.exportState())).opened);
    for (const query of ['needle', 'common needle', 'filler3']) {
      await restored.prepare(query);
      const expected = reference.search(query).slice(0, 20);
      for (const actual of [index.search(query, 20), restored.search(query, 20)]) {
        expect(actual.map((hit) => hit.id)).toEqual(expected.map((hit) => String(hit.id)));
        actual.forEach((hit, rank) => expect(hit.score).toBeCloseTo(expected[rank]?.score ?? Number.NaN, 9));
      }
    }
    expect(index.search('needle', 10).map((hit) => hit.id).sort()).toEqual(['c0', 'c129', 'c16500', 'c16501', 'c69999']);
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

/** Postings kept apart as a store keeps them: every range read is recorded. */
function leaveInStore(state: KeywordIndexState, fail?: () => Error | null) {
  const reads: Array<[number, number]> = [];
  const [text, title] = state.fields;
  const opened: StoredKeywordIndexState = {
    ...state,
    fields: [
      { ...text, postings: keepInStore(text.postings, reads, fail) },
      { ...title, postings: keepInStore(title.postings, reads, fail) },
    ],
  };
  const bytesRead = () => reads.reduce((total, [start, end]) => total + end - start, 0);
  return { opened, reads, bytesRead };
}

describe('a keyword index opened with its postings in the store', () => {
  it('ranks every query exactly as the index it was stored from, once prepared for it', async () => {
    await fc.assert(
      fc.asyncProperty(documents, fc.array(phrase(4), { minLength: 1, maxLength: 4 }), async (docs, queries) => {
        const index = createKeywordIndex(docs);
        const { opened } = leaveInStore(structuredClone(index.exportState()));
        const reopened = openKeywordIndex(docs.map((doc) => doc.id), opened);
        for (const query of queries) {
          await reopened.prepare(query);
          expect(reopened.search(query, 10)).toEqual(index.search(query, 10));
        }
      }),
      { numRuns: 60 },
    );
  });

  it("reads only the terms a query reaches, each once, and refuses to search what it has not read", async () => {
    const docs = Array.from({ length: 2_000 }, (_, at): KeywordDocument => ({
      id: `c${at}`,
      text: `common${at % 5} word${at} ${at % 97 === 0 ? 'needle' : ''}`,
      title: `file${at % 13}.md`,
    }));
    const index = createKeywordIndex(docs);
    const state = index.exportState();
    const total = state.fields[0].postings.length + state.fields[1].postings.length;
    const { opened, reads, bytesRead } = leaveInStore(state);
    const reopened = openKeywordIndex(docs.map((doc) => doc.id), opened);
    expect(() => reopened.search('needle', 5)).toThrow(/before its postings were read/);
    await reopened.prepare('needle');
    expect(reopened.search('needle', 30)).toEqual(index.search('needle', 30));
    expect(bytesRead()).toBeGreaterThan(0);
    expect(bytesRead()).toBeLessThan(total / 20);
    const readsSoFar = reads.length;
    await reopened.prepare('needle');
    expect(reads.length).toBe(readsSoFar);
    expect(() => reopened.exportState()).toThrow(/only the postings searched so far/);
  });

  it('rejects with DamagedIndexError when the store cannot give the postings or they do not check out', async () => {
    const docs = Array.from({ length: 50 }, (_, at): KeywordDocument => ({ id: `c${at}`, text: `alpha beta${at}`, title: 'a.md' }));
    const state = createKeywordIndex(docs).exportState();
    const unreadable = leaveInStore(structuredClone(state), () => new DOMException('gone', 'NotReadableError'));
    const cannotRead = openKeywordIndex(docs.map((doc) => doc.id), unreadable.opened);
    await expect(cannotRead.prepare('alpha')).rejects.toBeInstanceOf(DamagedIndexError);
    const garbled = structuredClone(state);
    garbled.fields[0].postings.fill(0xff);
    const damaged = openKeywordIndex(docs.map((doc) => doc.id), leaveInStore(garbled).opened);
    await expect(damaged.prepare('alpha')).rejects.toBeInstanceOf(DamagedIndexError);
    // Where the terms start is checked as it opens, before any read.
    const cut = structuredClone(state);
    cut.fields[0].starts.reverse();
    expect(() => openKeywordIndex(docs.map((doc) => doc.id), leaveInStore(cut).opened)).toThrow(/term starts/);
  });
});
