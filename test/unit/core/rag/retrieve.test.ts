import { describe, expect, it } from 'vitest';
import {
  capPerFile,
  createHybridRetriever,
  createVectorIndex,
  formatChunkLocation,
  fuseRankings,
  parseChunkLocation,
  type RetrievalChunk,
} from '../../../../src/core/rag';
import {
  SQLITE_API_DIR,
  loadCorpusChunks,
  loadKnownAnswers,
  loadLabelledQuestions,
  measureRecall,
} from './corpus';

const chunk = (
  id: string,
  fileId: string,
  text: string,
  embedding: number[] | null = null,
  model: string | null = null,
): RetrievalChunk => ({
  id,
  fileId,
  title: fileId,
  text,
  embedding: embedding === null ? null : Float32Array.from(embedding),
  embeddingModel: model,
});

describe('fuseRankings', () => {
  it('ranks an id found high in both lists above ids found in only one', () => {
    const fused = fuseRankings([
      [
        { id: 'a', score: 9, row: 0 },
        { id: 'b', score: 5, row: 1 },
      ],
      [
        { id: 'c', score: 0.9, row: 2 },
        { id: 'b', score: 0.8, row: 1 },
      ],
    ]);
    expect(fused.map((entry) => [entry.id, entry.row])).toEqual([
      ['b', 1],
      ['a', 0],
      ['c', 2],
    ]);
    expect(fused[0]?.score).toBeCloseTo(1 / 62 + 1 / 62);
  });
});

describe('createVectorIndex', () => {
  it('ranks by cosine similarity whatever the vector lengths', () => {
    const index = createVectorIndex([
      { id: 'x', vector: Float32Array.from([10, 0]) },
      { id: 'diag', vector: Float32Array.from([0.1, 0.1]) },
      { id: 'y', vector: Float32Array.from([0, 3]) },
    ]);
    expect(index.search(Float32Array.from([1, 0.2]), 3).map((hit) => hit.id)).toEqual([
      'x',
      'diag',
      'y',
    ]);
    expect(index.search(Float32Array.from([1, 0]), 1)[0]?.score).toBeCloseTo(1);
  });

  it("names each hit by its entry's position, also past an entry of another length left out", () => {
    const index = createVectorIndex([
      { id: 'x', vector: Float32Array.from([1, 0]) },
      { id: 'short', vector: Float32Array.from([1]) },
      { id: 'y', vector: Float32Array.from([0, 1]) },
    ]);
    expect(index.size).toBe(2);
    expect(index.search(Float32Array.from([0.1, 1]), 3).map((hit) => [hit.id, hit.row])).toEqual([
      ['y', 2],
      ['x', 0],
    ]);
  });
});

describe('capPerFile', () => {
  it('takes at most the cap from one file and fills the rest from the others', () => {
    const hits = ['a', 'a', 'a', 'b', 'a', 'c'].map((fileId, i) => ({
      chunk: { fileId },
      score: 10 - i,
    }));
    expect(capPerFile(hits, 4, 2).map((hit) => hit.chunk.fileId)).toEqual(['a', 'a', 'b', 'c']);
  });
});

describe('createHybridRetriever', () => {
  it('uses keywords alone when no chunk has a vector of the current model', () => {
    const retriever = createHybridRetriever(
      [chunk('1', 'f', 'apples and pears', [1, 0], 'old-model')],
      'new-model',
    );
    expect(retriever.hasVectors).toBe(false);
    const result = retriever.retrieve(['pears'], [Float32Array.from([1, 0])]);
    expect(result.mode).toBe('keyword');
    expect(result.hits.map((hit) => hit.chunk.id)).toEqual(['1']);
  });

  it('finds by meaning what keywords miss once vectors exist', () => {
    const chunks = [
      chunk('kw', 'f1', 'the automobile needs fuel', [0, 1], 'm'),
      chunk('sem', 'f2', 'a vehicle with four wheels', [1, 0], 'm'),
    ];
    const retriever = createHybridRetriever(chunks, 'm');
    const result = retriever.retrieve(['car'], [Float32Array.from([1, 0.1])]);
    expect(result.mode).toBe('hybrid');
    expect(result.hits[0]?.chunk.id).toBe('sem');
  });

  it('returns the chunk a vector belongs to where chunks without one, or of another model, come first', () => {
    const chunks = [
      chunk('none', 'f1', 'plain words', null, null),
      chunk('other-model', 'f1', 'more words', [1, 0], 'old'),
      chunk('north', 'f3', 'heading up', [0, 1], 'm'),
      chunk('short', 'f2', 'short vector', [1], 'm'),
      chunk('east', 'f4', 'heading right', [1, 0], 'm'),
    ];
    const retriever = createHybridRetriever(chunks, 'm');
    const hits = retriever.retrieve(['zzz'], [Float32Array.from([1, 0.05])]).hits;
    expect(hits.map((hit) => hit.chunk.id)).toEqual(['east', 'north']);
    expect(hits.map((hit) => hit.chunk.fileId)).toEqual(['f4', 'f3']);
  });

  it('fuses several queries into one ranking', () => {
    const retriever = createHybridRetriever(
      [chunk('1', 'f', 'bees and honey'), chunk('2', 'g', 'coffee grind size')],
      null,
    );
    const ids = retriever.retrieve(['honey', 'grind'], null).hits.map((hit) => hit.chunk.id);
    expect(ids.sort()).toEqual(['1', '2']);
  });

  it('answers the fixture corpus questions with keywords alone (recall@5 recorded)', () => {
    const retriever = createHybridRetriever(loadCorpusChunks(), null);
    const { recall, missed } = measureRecall(
      loadKnownAnswers(),
      (query) => retriever.retrieve([query], null, { topK: 5 }).hits,
    );
    console.log(
      `BM25 recall@5 on the fixture corpus: ${recall.toFixed(3)} (missed: ${missed.join(' | ') || 'none'})`,
    );
    expect(recall).toBeGreaterThanOrEqual(0.75);
  });

  it('finds the section answering each labelled SQLite question among the first ten hits', () => {
    const chunks = loadCorpusChunks(SQLITE_API_DIR, 128);
    const questions = loadLabelledQuestions(SQLITE_API_DIR);
    const retriever = createHybridRetriever(chunks, null);
    const missed = questions.filter(
      ({ query, section }) =>
        !retriever
          .retrieve([query], null, { topK: 10 })
          .hits.some((hit) => hit.chunk.headingPath.includes(section)),
    );
    // 41 of 45 when this was written (the BM25 index alone finds 42: the cap of 3 hits per file
    // costs one); bench 3c has every ranking's figure. A change that loses more says why.
    expect(missed.length, missed.map(({ query }) => query).join(' | ')).toBeLessThanOrEqual(4);
  });
});

describe('chunk locations', () => {
  it('round-trips page, heading path and character range through the stored text', () => {
    const position = { charStart: 120, charEnd: 900, page: 3, headingPath: ['Setup', 'Install'] };
    const location = formatChunkLocation(position);
    expect(location).toBe('p. 3 · Setup › Install · chars 120–900');
    expect(parseChunkLocation(location)).toEqual(position);
    expect(
      parseChunkLocation(formatChunkLocation({ ...position, page: null, headingPath: [] })),
    ).toEqual({ ...position, page: null, headingPath: [] });
    expect(parseChunkLocation('§2.1')).toBeUndefined();
  });
});

describe('createVectorIndex with 8-bit rows', () => {
  it('ranks like the float matrix and scores within a small error', () => {
    const rows = Array.from({ length: 40 }, (_, row) => ({
      id: `r${row}`,
      vector: Float32Array.from(
        { length: 24 },
        (_, i) => Math.sin(row * 7.1 + i * 1.3) + (i === row % 24 ? 1 : 0),
      ),
    }));
    const query = Float32Array.from({ length: 24 }, (_, i) => Math.cos(i * 0.7));
    const exact = createVectorIndex(rows).search(query, 5);
    const int8 = createVectorIndex(rows, { isInt8: true }).search(query, 5);
    expect(int8.map((hit) => hit.id)).toEqual(exact.map((hit) => hit.id));
    int8.forEach((hit, i) => expect(hit.score).toBeCloseTo(exact[i]?.score ?? 0, 2));
  });
});
