import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asFileId, asProjectId } from '../../../../src/core/model';
import type { FileSearchBlock, TextChunk } from '../../../../src/core/ports';
import {
  buildFileSearchBlock,
  createHybridRetriever,
  createRetrieverFromBlocks,
  isSearchBlockUsable,
  SEARCH_BLOCK_FORMAT,
  type BlockFile,
} from '../../../../src/core/rag';
import { loadCorpusChunks, loadKnownAnswers } from './corpus';

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
