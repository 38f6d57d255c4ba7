import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asFileId, asProjectId } from '../../../../src/core/model';
import type { FileSearchBlock, ProjectSearchSnapshot, TextChunk } from '../../../../src/core/ports';
import {
  buildFileSearchBlock,
  countTerms,
  createHybridRetriever,
  createKeywordSegment,
  normalizeTerm,
  createRetrieverFromBlocks,
  DamagedIndexError,
  isSearchBlockUsable,
  restoreRetrieverFromSnapshot,
  SEARCH_BLOCK_FORMAT,
  type BlockFile,
  type BlockRetriever,
  type JoinedRetriever,
} from '../../../../src/core/rag';
import { loadCorpusChunks, loadKnownAnswers } from './corpus';
import { openInStore } from './in-store';

const PROJECT = asProjectId('p1');
const MODEL = 'model-a';

/** Corpus chunks as stored, each with a seeded vector (some of another model, some none). */
function loadStoredCorpus(): { files: BlockFile[]; chunks: TextChunk[] } {
  const corpus = loadCorpusChunks();
  let seed = 7;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647 - 0.5;
  };
  const chunks = corpus.map((chunk, index): TextChunk => {
    const ordinal = Number(chunk.id.split('#')[1]);
    const embedding = index % 7 === 3 ? null : Float32Array.from({ length: 16 }, random);
    return {
      id: chunk.id,
      fileId: asFileId(chunk.fileId),
      projectId: PROJECT,
      ordinal,
      text: chunk.text,
      tokenCount: 1,
      location: chunk.location,
      embedding,
      embeddingModel: embedding === null ? null : index % 5 === 1 ? 'model-b' : MODEL,
    };
  });
  const files = [...new Set(chunks.map((chunk) => chunk.fileId))]
    .sort()
    .map((id): BlockFile => ({ id, projectId: PROJECT, name: id }));
  return { files, chunks };
}

/** Each file's block as it comes back from IndexedDB: a structured clone. */
function buildStoredBlocks(files: readonly BlockFile[], chunks: readonly TextChunk[]): FileSearchBlock[] {
  return files.map((file) =>
    structuredClone(buildFileSearchBlock(file, chunks.filter((chunk) => chunk.fileId === file.id).reverse())),
  );
}

function retrieveFromChunks(chunks: readonly TextChunk[], queries: string[], vectors: Float32Array[] | null) {
  const retriever = createHybridRetriever(
    chunks.map((chunk) => ({ ...chunk, title: chunk.fileId })),
    MODEL,
  );
  return retriever.retrieve(queries, vectors, { topK: 20, perFileCap: 20 }).hits.map((hit) => [hit.chunk.id, hit.score]);
}

function retrieveFromBlocks(blocks: readonly FileSearchBlock[], queries: string[], vectors: Float32Array[] | null) {
  const { retriever } = createRetrieverFromBlocks(blocks, MODEL);
  return retriever.retrieve(queries, vectors, { topK: 20, perFileCap: 20 }).hits.map((hit) => [hit.chunk.id, hit.score]);
}

describe('file search blocks', () => {
  it('rank exactly as the index built from the chunks, keywords and vectors alike', () => {
    const { files, chunks } = loadStoredCorpus();
    const blocks = buildStoredBlocks(files, chunks);
    const queryVector = chunks.find((chunk) => chunk.embeddingModel === MODEL)?.embedding ?? null;
    if (queryVector === null) throw new Error('expected a vector of the model');
    for (const { query } of loadKnownAnswers()) {
      const expected = retrieveFromChunks(chunks, [query], [queryVector]);
      expect(expected.length).toBeGreaterThan(0);
      expect(retrieveFromBlocks(blocks, [query], [queryVector])).toEqual(expected);
      expect(retrieveFromBlocks(blocks, [query, 'instalation settings'], null)).toEqual(
        retrieveFromChunks(chunks, [query, 'instalation settings'], null),
      );
    }
  });

  it('rank exactly as the chunks do however the documents fall into files', () => {
    const word = fc.constantFrom('alpha', 'alphabet', 'beta', 'betamax', 'gamma', 'gammas', 'delta', 'the', 'install', 'installation', 'instal');
    const documents = fc.array(fc.record({ text: fc.array(word, { maxLength: 12 }), file: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 25 });
    fc.assert(
      fc.property(documents, fc.array(word, { minLength: 1, maxLength: 3 }), (generated, queryWords) => {
        // Files in id order, chunks in ordinal order: the order a project indexes them in.
        const chunks = generated
          .map((document, index): TextChunk => ({
            id: `c${index}`,
            fileId: asFileId(`f${document.file}`),
            projectId: PROJECT,
            ordinal: index,
            text: document.text.join(' '),
            tokenCount: 1,
            embedding: null,
            embeddingModel: null,
          }))
          .sort((a, b) => (a.fileId < b.fileId ? -1 : a.fileId > b.fileId ? 1 : a.ordinal - b.ordinal));
        const files = [...new Set(chunks.map((chunk) => chunk.fileId))].map(
          (id): BlockFile => ({ id, projectId: PROJECT, name: `${id} ${queryWords[0] ?? ''}` }),
        );
        const titled = chunks.map((chunk) => ({ ...chunk, title: `${chunk.fileId} ${queryWords[0] ?? ''}` }));
        const query = [queryWords.join(' ')];
        const expected = createHybridRetriever(titled, null)
          .retrieve(query, null, { topK: 30, perFileCap: 30 })
          .hits.map((hit) => [hit.chunk.id, hit.score]);
        expect(retrieveFromBlocks(buildStoredBlocks(files, chunks), query, null)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('are refused when built by another format, for another file name, or with arrays that disagree', () => {
    const { files, chunks } = loadStoredCorpus();
    const file = files[0] as BlockFile;
    const fresh = () => buildStoredBlocks([file], chunks)[0] as FileSearchBlock;
    expect(isSearchBlockUsable(fresh(), file)).toBe(true);
    const broken: Array<[string, (block: FileSearchBlock) => void]> = [
      ['an older format', (block) => (block.format = SEARCH_BLOCK_FORMAT - 1)],
      ['a renamed file', (block) => (block.title = 'renamed.md')],
      ['a lost location', (block) => block.locations.pop()],
      ['a term beyond the dictionary', (block) => block.keywords.fields[0].termRefs.fill(block.keywords.terms.length, 0, 1)],
      ['a title term counted as text', (block) => (block.keywords.textTermCount = 0)],
      ['more text terms than the packed terms hold', (block) => (block.keywords.textTermCount = countTerms(block.keywords.terms) + 1)],
      ['the last term not ended', (block) => (block.keywords.terms = block.keywords.terms.slice(0, -1))],
      ['an empty term', (block) => (block.keywords.terms = `${block.keywords.terms}\n`)],
      ['an empty first term', (block) => (block.keywords.terms = `\n${block.keywords.terms}`)],
      ['a term lost', (block) => (block.keywords.terms = block.keywords.terms.slice(block.keywords.terms.indexOf('\n') + 1))],
      ['cut postings', (block) => (block.keywords.fields[1].frequencies = block.keywords.fields[1].frequencies.subarray(1))],
      ['starts out of order', (block) => block.keywords.fields[0].docStarts.reverse()],
      ['a vector cut short', (block) => (block.vectors.values = block.vectors.values.subarray(1))],
      ['an unknown model', (block) => block.vectors.rowModels.fill(5, 0, 1)],
    ];
    for (const [label, breakIt] of broken) {
      const block = fresh();
      breakIt(block);
      expect({ label, isUsable: isSearchBlockUsable(block, file) }).toEqual({ label, isUsable: false });
    }
  });

  it('say whether any chunk has a vector, of any model', () => {
    const { files, chunks } = loadStoredCorpus();
    const withModelB = createRetrieverFromBlocks(buildStoredBlocks(files, chunks), 'model-b');
    expect(withModelB.hasAnyVector).toBe(true);
    expect(withModelB.retriever.hasVectors).toBe(true);
    const bare = chunks.map((chunk) => ({ ...chunk, embedding: null, embeddingModel: null }));
    const none = createRetrieverFromBlocks(buildStoredBlocks(files, bare), MODEL);
    expect(none).toMatchObject({ hasAnyVector: false, chunkCount: chunks.length });
    expect(none.retriever.hasVectors).toBe(false);
  });
});

/** The snapshot as it comes back from IndexedDB: a structured clone. */
function storeSnapshot(retriever: JoinedRetriever): ProjectSearchSnapshot {
  return structuredClone(retriever.exportSnapshot());
}

/** The text field's postings replaced by these bytes for its first term, and none for the rest. */
function withFirstTermBytes(snapshot: ProjectSearchSnapshot, bytes: number[]): void {
  const field = snapshot.keywords.fields[0];
  field.starts = new Int32Array(field.starts.length).fill(bytes.length, 1);
  field.postings = Uint8Array.from(bytes);
}

/** `value` as an unsigned LEB128 varint. */
function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  for (; rest >= 0x80; rest = Math.floor(rest / 0x80)) bytes.push((rest & 0x7f) | 0x80);
  bytes.push(rest);
  return bytes;
}

function rank(index: BlockRetriever, queries: string[], vectors: Float32Array[] | null) {
  const { mode, hits } = index.retriever.retrieve(queries, vectors, { topK: 20, perFileCap: 20 });
  return { mode, hits: hits.map((hit) => [hit.chunk.id, hit.chunk.fileId, hit.chunk.location, hit.score]) };
}

describe('project search snapshots', () => {
  it('restore the index they were exported from, ranking exactly as it does, in float32 and in 8-bit rows', async () => {
    const { files, chunks } = loadStoredCorpus();
    // A vector of another length is left out of the index, and one with a NaN never ranks.
    let ofModel = 0;
    const odd = chunks.map((chunk) => {
      if (chunk.embeddingModel !== MODEL || ofModel++ % 4 !== 1) return chunk;
      const embedding = ofModel % 8 === 2 ? new Float32Array(8).fill(0.5) : new Float32Array(16).fill(Number.NaN);
      return { ...chunk, embedding };
    });
    const blocks = buildStoredBlocks(files, odd);
    const queryVector = chunks.find((chunk) => chunk.embeddingModel === MODEL)?.embedding ?? null;
    if (queryVector === null) throw new Error('expected a vector of the model');
    for (const isInt8 of [false, true]) {
      const joined = createRetrieverFromBlocks(blocks, MODEL, { isInt8 });
      const restored = restoreRetrieverFromSnapshot(openInStore(storeSnapshot(joined)));
      expect(restored).toMatchObject({ chunkCount: joined.chunkCount, hasAnyVector: true });
      for (const { query } of loadKnownAnswers()) {
        await restored.retriever.prepare([query, 'instalation settings']);
        const expected = rank(joined, [query, 'instalation settings'], [queryVector]);
        expect(expected.mode).toBe('hybrid');
        expect(rank(restored, [query, 'instalation settings'], [queryVector])).toEqual(expected);
        expect(rank(restored, [query], null)).toEqual(rank(joined, [query], null));
      }
      // Every row ranks against itself as the joined index ranks it, the NaN rows never.
      const nanIds = new Set(odd.filter((chunk) => chunk.embedding?.some(Number.isNaN)).map((chunk) => chunk.id));
      expect(nanIds.size).toBeGreaterThan(0);
      expect(odd.some((chunk) => chunk.embedding?.length === 8)).toBe(true);
      for (const chunk of odd.filter((chunk) => chunk.embeddingModel === MODEL && chunk.embedding?.length === 16)) {
        const vector = chunk.embedding as Float32Array;
        const hits = rank(restored, [], [vector]).hits;
        expect(hits).toEqual(rank(joined, [], [vector]).hits);
        expect(hits.some(([id]) => nanIds.has(id as string))).toBe(false);
      }
    }
  });

  it('restore a keyword-only index and name the files and model they were joined for', async () => {
    const { files, chunks } = loadStoredCorpus();
    const bare = chunks.map((chunk) => ({ ...chunk, embedding: null, embeddingModel: null }));
    const joined = createRetrieverFromBlocks(buildStoredBlocks(files, bare), null, { isInt8: true });
    const snapshot = storeSnapshot(joined);
    expect(snapshot).toMatchObject({ modelId: null, hasAnyVector: false, fileIds: files.map((file) => file.id), fileNames: files.map((file) => file.name) });
    const restored = restoreRetrieverFromSnapshot(openInStore(snapshot));
    expect(restored.retriever.hasVectors).toBe(false);
    for (const { query } of loadKnownAnswers()) {
      await restored.retriever.prepare([query]);
      expect(rank(restored, [query], null)).toEqual(rank(joined, [query], null));
    }
  });

  it('are refused when of another format or when their arrays disagree, postings when a search first reads them', async () => {
    const { files, chunks } = loadStoredCorpus();
    const joined = createRetrieverFromBlocks(buildStoredBlocks(files, chunks), MODEL, { isInt8: true });
    const term = firstTerm(storeSnapshot(joined));
    const vector = firstRow(storeSnapshot(joined));
    const broken: Array<[string, (snapshot: ProjectSearchSnapshot) => void, Refusal?]> = [
      ['another format', (snapshot) => (snapshot.format -= 1)],
      ['a lost location', (snapshot) => snapshot.locations.pop()],
      ['a lost file name', (snapshot) => snapshot.fileNames.pop()],
      ['a chunk of no file', (snapshot) => snapshot.chunkFiles.fill(snapshot.fileIds.length, 0, 1), 'search'],
      ['the last term not ended', (snapshot) => (snapshot.keywords.terms = snapshot.keywords.terms.slice(0, -1))],
      ['a term lost', (snapshot) => (snapshot.keywords.terms = snapshot.keywords.terms.slice(snapshot.keywords.terms.indexOf('\n') + 1))],
      ['a term twice', (snapshot) => (snapshot.keywords.terms = snapshot.keywords.terms.replace(/^([^\n]*\n)([^\n]*\n)/, '$1$1'))],
      // Postings are varints: a term's bytes hold its count of chunks, then per chunk the gap
      // from the one before less one (the first: its number) and the term's count in it.
      ['a posting of no chunk', (snapshot) => withFirstTermBytes(snapshot, [1, ...varint(snapshot.chunkIds.length), 1]), 'search'],
      ['a term counting more chunks than it lists', (snapshot) => withFirstTermBytes(snapshot, [2, 0, 1]), 'search'],
      ['a term counting no chunk', (snapshot) => withFirstTermBytes(snapshot, [0]), 'search'],
      ['a posting counting the term zero times', (snapshot) => withFirstTermBytes(snapshot, [1, 0, 0]), 'search'],
      ['bytes left after a term\'s postings', (snapshot) => withFirstTermBytes(snapshot, [1, 0, 1, 0]), 'search'],
      ['a varint cut short', (snapshot) => withFirstTermBytes(snapshot, [1, 0x80]), 'search'],
      ['cut postings', (snapshot) => (snapshot.keywords.fields[1].postings = snapshot.keywords.fields[1].postings.subarray(1))],
      ['starts out of order', (snapshot) => snapshot.keywords.fields[0].starts.reverse()],
      ['a lost field length', (snapshot) => (snapshot.keywords.fields[0].lengths = snapshot.keywords.fields[0].lengths.subarray(1))],
      ['terms out of sorted order', (snapshot) => snapshot.keywords.dictionary.sortedIds.reverse()],
      ['a term listed twice in sorted order', (snapshot) => snapshot.keywords.dictionary.sortedIds.fill(0, 0, 2)],
      ['a trie link pointing back', (snapshot) => snapshot.keywords.dictionary.trie.ends.fill(0, 0, 1)],
      ['a trie node of a term the index lacks', (snapshot) => snapshot.keywords.dictionary.trie.termIdsAt.fill(1e9, 0, 1)],
      ['trie arrays that differ', (snapshot) => (snapshot.keywords.dictionary.trie.depths = snapshot.keywords.dictionary.trie.depths.subarray(1))],
      ['a vector row of no chunk', (snapshot) => snapshot.vectors.rows.fill(snapshot.chunkIds.length, 0, 1), 'search'],
      ['a vector cut short', (snapshot) => (snapshot.vectors.values = snapshot.vectors.values.subarray(1))],
      ['lost scales', (snapshot) => (snapshot.vectors.scales = null)],
      ['a NaN row out of range', (snapshot) => (snapshot.vectors.nonFiniteRows = Int32Array.of(snapshot.vectors.rows.length))],
    ];
    for (const [label, breakIt, when = 'restore'] of broken) {
      const snapshot = storeSnapshot(joined);
      breakIt(snapshot);
      expect({ label, refused: await findRefusal(snapshot, term, vector) }).toEqual({ label, refused: when });
    }
    expect(await findRefusal(storeSnapshot(joined), term, vector)).toBeNull();
  });
});

type Refusal = 'restore' | 'search';

/** The snapshot's first stored term, which withFirstTermBytes gives every posting byte. */
function firstTerm(snapshot: ProjectSearchSnapshot): string {
  return snapshot.keywords.terms.slice(0, snapshot.keywords.terms.indexOf('\n'));
}

/** The snapshot's first vector row, as a query: that row ranks first. */
function firstRow(snapshot: ProjectSearchSnapshot): Float32Array {
  const { values, dimensions } = snapshot.vectors;
  return Float32Array.from(values.subarray(0, dimensions));
}

/**
 * Where a snapshot is refused: as it is restored, or by a search reading `term`'s postings and
 * the first chunk (which holds the first term) or ranking the first vector row first.
 */
async function findRefusal(
  snapshot: ProjectSearchSnapshot,
  term: string,
  vector: Float32Array,
): Promise<Refusal | 'another error' | null> {
  let restored: BlockRetriever;
  try {
    restored = restoreRetrieverFromSnapshot(openInStore(snapshot));
  } catch {
    return 'restore';
  }
  try {
    await restored.retriever.prepare([term]);
    restored.retriever.retrieve([term], [vector]);
    return null;
  } catch (error) {
    return error instanceof DamagedIndexError ? 'search' : 'another error';
  }
}

describe('packed terms', () => {
  const tokenize = (text: string) => text.split(/[\s\p{P}]+/u).filter((token) => token.length > 0);
  // Words of any letters, astral ones and accents too, so hashing sees every kind of code unit.
  const word = fc.stringMatching(/^[a-zà-ÿα-ω\u{1F600}-\u{1F60F}]{1,8}$/u);

  it('hold every distinct term once, text terms in first-seen order and then those only in titles', () => {
    const documents = fc.array(fc.record({ text: fc.array(word, { maxLength: 10 }), title: fc.array(word, { maxLength: 3 }) }), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(documents, (generated) => {
        const segment = createKeywordSegment(
          generated.map((document, index) => ({ id: `d${index}`, text: document.text.join(' '), title: document.title.join(' ') })),
        );
        const distinct = (texts: string[]) => texts.flatMap(tokenize).flatMap((token) => normalizeTerm(token) ?? []);
        const textTerms = [...new Set(distinct(generated.map((document) => document.text.join(' '))))];
        const titleTerms = [...new Set(distinct(generated.map((document) => document.title.join(' '))))].filter(
          (term) => !textTerms.includes(term),
        );
        const unpacked = segment.terms.split('\n');
        expect(unpacked.pop()).toBe('');
        expect(unpacked).toEqual([...textTerms, ...titleTerms]);
        expect(segment.textTermCount).toBe(textTerms.length);
        expect(countTerms(segment.terms)).toBe(unpacked.length);
      }),
      { numRuns: 200 },
    );
  });

  it('survive a stored round trip, and the blocks rank as the chunks do over many distinct terms', () => {
    // Enough distinct terms, spread over files that share some, for the term table to grow.
    const wordAt = (index: number) => `w${(index * 7_919) % 6_000}x${index % 13}`;
    const chunks = Array.from({ length: 300 }, (_, index): TextChunk => ({
      id: `c${index}`,
      fileId: asFileId(`f${String(index % 7).padStart(2, '0')}`),
      projectId: PROJECT,
      ordinal: index,
      text: Array.from({ length: 40 }, (_, at) => wordAt(index * 40 + at)).join(' '),
      tokenCount: 1,
      embedding: null,
      embeddingModel: null,
    })).sort((a, b) => (a.fileId < b.fileId ? -1 : a.fileId > b.fileId ? 1 : a.ordinal - b.ordinal));
    const files = [...new Set(chunks.map((chunk) => chunk.fileId))].map((id): BlockFile => ({ id, projectId: PROJECT, name: id }));
    const blocks = buildStoredBlocks(files, chunks);
    blocks.forEach((block, index) => {
      expect(isSearchBlockUsable(block, files[index] as BlockFile)).toBe(true);
      const built = buildFileSearchBlock(files[index] as BlockFile, chunks.filter((chunk) => chunk.fileId === block.fileId));
      expect(block.keywords).toEqual(built.keywords);
    });
    for (const query of [wordAt(5), `${wordAt(17)} ${wordAt(4_000)}`, 'w123', wordAt(11_999)]) {
      const expected = retrieveFromChunks(chunks, [query], null);
      expect(expected.length).toBeGreaterThan(0);
      expect(retrieveFromBlocks(blocks, [query], null)).toEqual(expected);
    }
  });

  it('take 16 bits a term reference while a file has at most 65,536 distinct terms, and 32 beyond, ranking alike', () => {
    const chunksOf = (fileId: string, distinct: number): TextChunk[] =>
      Array.from({ length: 4 }, (_, ordinal) => ({
        id: `${fileId}#${ordinal}`,
        fileId: asFileId(fileId),
        projectId: PROJECT,
        ordinal,
        text: Array.from({ length: distinct / 4 }, (_, at) => `t${ordinal * (distinct / 4) + at}`).join(' '),
        tokenCount: 1,
        embedding: null,
        embeddingModel: null,
      }));
    const chunks = [...chunksOf('f1', 65_532), ...chunksOf('f2', 70_000)];
    const files = ['f1', 'f2'].map((id): BlockFile => ({ id: asFileId(id), projectId: PROJECT, name: id }));
    const [narrow, wide] = buildStoredBlocks(files, chunks) as [FileSearchBlock, FileSearchBlock];
    // 65,532 text terms and the title's "f1": the largest reference is 65,532.
    expect(narrow.keywords.fields.map((field) => field.termRefs.constructor)).toEqual([Uint16Array, Uint16Array]);
    expect(wide.keywords.fields.map((field) => field.termRefs.constructor)).toEqual([Uint32Array, Uint32Array]);
    files.forEach((file, index) => expect(isSearchBlockUsable([narrow, wide][index] as FileSearchBlock, file)).toBe(true));
    for (const query of ['t65531', 't69999 t3', 'f2 t7000']) {
      const expected = retrieveFromChunks(chunks, [query], null);
      expect(expected.length).toBeGreaterThan(0);
      expect(retrieveFromBlocks([narrow, wide], [query], null)).toEqual(expected);
    }
  });

  it('count in 8 bits while no term occurs more than 255 times in a chunk, and in 16 beyond, ranking alike', () => {
    const chunk = (fileId: string, ordinal: number, text: string): TextChunk => ({
      id: `${fileId}#${ordinal}`,
      fileId: asFileId(fileId),
      projectId: PROJECT,
      ordinal,
      text,
      tokenCount: 1,
      embedding: null,
      embeddingModel: null,
    });
    const chunks = [
      chunk('f1', 0, 'oven '.repeat(255) + 'bread'),
      chunk('f1', 1, 'bread oven flour'),
      chunk('f2', 0, 'oven '.repeat(256) + 'bread flour'),
      chunk('f2', 1, 'flour '.repeat(40)),
    ];
    const files = ['f1', 'f2'].map((id): BlockFile => ({ id: asFileId(id), projectId: PROJECT, name: id }));
    const [narrow, wide] = buildStoredBlocks(files, chunks) as [FileSearchBlock, FileSearchBlock];
    expect(narrow.keywords.fields[0].frequencies).toBeInstanceOf(Uint8Array);
    expect(wide.keywords.fields[0].frequencies).toBeInstanceOf(Uint16Array);
    for (const query of ['oven', 'bread flour', 'oven flour f2']) {
      const expected = retrieveFromChunks(chunks, [query], null);
      expect(expected.length).toBeGreaterThan(0);
      expect(retrieveFromBlocks([narrow, wide], [query], null)).toEqual(expected);
    }
  });
});
