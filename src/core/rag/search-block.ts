/**
 * A project's search index kept per file, so that opening a large project reads packed arrays
 * instead of tokenizing and copying every chunk again: `buildFileSearchBlock` counts a file's
 * chunks once (when the project is next searched after they change), storage keeps the block,
 * and `createRetrieverFromBlocks` joins the blocks of a project into the same index
 * `createHybridRetriever` builds from the chunks, ranking exactly as it does.
 */
import type { FileId } from '../model';
import type {
  FileSearchBlock,
  OpenedProjectSnapshot,
  ProjectSearchSnapshot,
  SearchBlockField,
  TextChunk,
} from '../ports';
import {
  countTerms,
  createKeywordIndexFromSegments,
  DamagedIndexError,
  createKeywordSegment,
  KEYWORD_SEGMENT_FORMAT,
  openKeywordIndex,
  TERM_END,
  type KeywordIndex,
  type KeywordSegment,
} from './bm25-index';
import { createHybridRetrieverOver, listChunks, type HybridRetriever } from './retrieve';
import {
  createVectorIndex,
  restoreVectorIndex,
  type RowIds,
  type VectorEntry,
  type VectorIndex,
  type VectorIndexOptions,
} from './vector-index';

/**
 * The block layout (1) and the keyword counting it holds: a block of another format is rebuilt
 * from the chunks, never read.
 */
export const SEARCH_BLOCK_FORMAT = 1_000 + KEYWORD_SEGMENT_FORMAT;

/**
 * The snapshot layout (2: postings as varint bytes) and the keyword counting it holds, as for
 * blocks.
 */
export const SEARCH_SNAPSHOT_FORMAT = 2_000 + KEYWORD_SEGMENT_FORMAT;

/** `rowModels` for a chunk with no vector, and for one whose vector names no model. */
const NO_VECTOR = -1;
const VECTOR_WITHOUT_MODEL = -2;

/** The chunk of a hit: what ranking needs, and where its text is fetched from. */
export interface IndexedChunk {
  id: string;
  fileId: FileId;
  location: string;
}

export interface BlockFile {
  id: FileId;
  projectId: FileSearchBlock['projectId'];
  name: string;
}

/** The file's block from its chunks, which are taken in ordinal order. */
export function buildFileSearchBlock(
  file: BlockFile,
  chunks: readonly TextChunk[],
): FileSearchBlock {
  const ordered = [...chunks].sort((a, b) => a.ordinal - b.ordinal);
  const segment = createKeywordSegment(
    ordered.map((chunk) => ({ id: chunk.id, text: chunk.text, title: file.name })),
  );
  const models: string[] = [];
  const rowModels = new Int32Array(ordered.length);
  const offsets = new Uint32Array(ordered.length + 1);
  let valueCount = 0;
  ordered.forEach((chunk, row) => {
    valueCount += chunk.embedding?.length ?? 0;
    offsets[row + 1] = valueCount;
    if (chunk.embedding === null) rowModels[row] = NO_VECTOR;
    else if (chunk.embeddingModel === null) rowModels[row] = VECTOR_WITHOUT_MODEL;
    else {
      let model = models.indexOf(chunk.embeddingModel);
      if (model === -1) model = models.push(chunk.embeddingModel) - 1;
      rowModels[row] = model;
    }
  });
  const values = new Float32Array(valueCount);
  ordered.forEach((chunk, row) => {
    if (chunk.embedding !== null) values.set(chunk.embedding, offsets[row]);
  });
  return {
    fileId: file.id,
    projectId: file.projectId,
    format: SEARCH_BLOCK_FORMAT,
    title: file.name,
    chunkIds: segment.ids,
    locations: ordered.map((chunk) => chunk.location ?? ''),
    keywords: {
      terms: segment.terms,
      textTermCount: segment.textTermCount,
      fields: segment.fields,
    },
    vectors: { models, rowModels, offsets, values },
  };
}

/**
 * True when the block was built for this file as it is now (format, name) and its arrays agree
 * with each other, so reading it can neither fail nor rank wrongly. Anything else is rebuilt.
 */
export function isSearchBlockUsable(block: FileSearchBlock, file: BlockFile): boolean {
  if (block.format !== SEARCH_BLOCK_FORMAT || block.fileId !== file.id || block.title !== file.name)
    return false;
  const rows = block.chunkIds.length;
  const { terms, textTermCount, fields } = block.keywords;
  if (block.locations.length !== rows || !isPackedTermsUsable(terms)) return false;
  const termCount = countTerms(terms);
  if (textTermCount > termCount) return false;
  const [text, title] = fields;
  if (!isFieldUsable(text, rows, textTermCount) || !isFieldUsable(title, rows, termCount))
    return false;
  const { models, rowModels, offsets, values } = block.vectors;
  if (rowModels.length !== rows || !isRunOfStarts(offsets, rows, values.length)) return false;
  for (let row = 0; row < rows; row++) {
    const model = rowModels[row] as number;
    if (model < VECTOR_WITHOUT_MODEL || model >= models.length) return false;
    if (model === NO_VECTOR && offsets[row] !== offsets[row + 1]) return false;
  }
  return true;
}

/** Every term ends in TERM_END and none is empty. */
function isPackedTermsUsable(terms: string): boolean {
  return (
    terms === '' ||
    (terms.endsWith(TERM_END) &&
      !terms.startsWith(TERM_END) &&
      !terms.includes(TERM_END + TERM_END))
  );
}

function isFieldUsable(field: SearchBlockField, rows: number, termCount: number): boolean {
  const { docStarts, termRefs, frequencies, lengths } = field;
  if (lengths.length !== rows || frequencies.length !== termRefs.length) return false;
  if (!isRunOfStarts(docStarts, rows, termRefs.length)) return false;
  for (const ref of termRefs) if (ref >= termCount) return false;
  return true;
}

/** `starts` has `rows + 1` entries from 0 to `end`, never decreasing. */
function isRunOfStarts(starts: Uint32Array, rows: number, end: number): boolean {
  if (starts.length !== rows + 1 || starts[0] !== 0 || starts[rows] !== end) return false;
  for (let row = 0; row < rows; row++)
    if ((starts[row] as number) > (starts[row + 1] as number)) return false;
  return true;
}

/** Some chunk of these blocks has a vector (of any model). */
export function hasAnyVector(blocks: readonly FileSearchBlock[]): boolean {
  return blocks.some((block) => block.vectors.rowModels.some((model) => model !== NO_VECTOR));
}

export interface BlockRetriever {
  retriever: HybridRetriever<IndexedChunk>;
  chunkCount: number;
  /** Some chunk has a vector (of any model). */
  hasAnyVector: boolean;
  /**
   * Readies the fastest vector scan where an index restored from a snapshot still scans its
   * rows where they were read (see VectorIndex.prepareScan): work for after an answer.
   */
  prepareScan(): void;
}

/** An index joined from blocks, which can be stored as the project's snapshot. */
export interface JoinedRetriever extends BlockRetriever {
  /** The index as one snapshot to store (the keyword arrays are the index's own). */
  exportSnapshot(): ProjectSearchSnapshot;
}

/**
 * The project's index from its files' blocks, in the order given (the order the chunks would be
 * indexed in). Vectors of `embeddingModel` take part; with null, keywords alone.
 */
export function createRetrieverFromBlocks(
  blocks: readonly FileSearchBlock[],
  embeddingModel: string | null,
  vectorOptions: VectorIndexOptions = {},
): JoinedRetriever {
  const chunks: IndexedChunk[] = [];
  const segments: KeywordSegment[] = [];
  const vectors: VectorEntry[] = [];
  const vectorPositions: number[] = [];
  for (const block of blocks) {
    const { chunkIds, locations } = block;
    segments.push({ ids: chunkIds, ...block.keywords });
    const { models, rowModels, offsets, values } = block.vectors;
    const wanted = embeddingModel === null ? -1 : models.indexOf(embeddingModel);
    chunkIds.forEach((id, row) => {
      const model = rowModels[row] as number;
      if (wanted !== -1 && model === wanted) {
        vectors.push({ id, vector: values.subarray(offsets[row], offsets[row + 1]) });
        vectorPositions.push(chunks.length);
      }
      chunks.push({ id, fileId: block.fileId, location: locations[row] as string });
    });
  }
  const keywordIndex = createKeywordIndexFromSegments(segments);
  const vectorIndex = createVectorIndex(vectors, vectorOptions);
  const anyVector = hasAnyVector(blocks);
  return {
    retriever: createHybridRetrieverOver(
      listChunks(chunks, vectorPositions),
      keywordIndex,
      vectorIndex,
    ),
    chunkCount: chunks.length,
    hasAnyVector: anyVector,
    exportSnapshot: () =>
      exportSnapshot(
        blocks.map((block) => ({ id: block.fileId, name: block.title })),
        chunks,
        keywordIndex,
        vectorIndex,
        embeddingModel,
        anyVector,
      ),
    prepareScan: () => vectorIndex.prepareScan(),
  };
}

function exportSnapshot(
  files: ReadonlyArray<{ id: FileId; name: string }>,
  chunks: readonly IndexedChunk[],
  keywordIndex: KeywordIndex,
  vectorIndex: VectorIndex,
  modelId: string | null,
  anyVector: boolean,
): ProjectSearchSnapshot {
  const filePositions = new Map(files.map((file, position) => [file.id, position]));
  const chunkPositions = new Map(chunks.map((chunk, position) => [chunk.id, position]));
  const { ids: vectorIds, state: vectorState } = vectorIndex.exportState();
  return {
    format: SEARCH_SNAPSHOT_FORMAT,
    modelId,
    hasAnyVector: anyVector,
    fileIds: files.map((file) => file.id),
    fileNames: files.map((file) => file.name),
    chunkIds: chunks.map((chunk) => chunk.id),
    chunkFiles: Uint32Array.from(chunks, (chunk) => filePositions.get(chunk.fileId) as number),
    locations: chunks.map((chunk) => chunk.location),
    keywords: keywordIndex.exportState(),
    vectors: {
      rows: Uint32Array.from(vectorIds, (id) => chunkPositions.get(id) as number),
      ...vectorState,
    },
  };
}

/**
 * The index a snapshot was exported from, without joining blocks: the rows are used as stored,
 * and the postings are read from the store as queries reach them (`prepare`). Throws when the
 * snapshot is of another format or its arrays disagree, so a damaged store is rebuilt from the
 * blocks instead of ranked from. A term's postings are checked as `prepare` reads them, a
 * chunk's file and a vector row's chunk when `retrieve` returns them: damaged, they throw
 * DamagedIndexError.
 */
export function restoreRetrieverFromSnapshot(snapshot: OpenedProjectSnapshot): BlockRetriever {
  const { format, fileIds, fileNames, chunkIds, chunkFiles, locations, vectors } = snapshot;
  if (format !== SEARCH_SNAPSHOT_FORMAT) throw new Error('Search snapshot: another format');
  const count = chunkIds.length;
  if (
    fileNames.length !== fileIds.length ||
    chunkFiles.length !== count ||
    locations.length !== count
  )
    throw new Error('Search snapshot: its lists differ in length');
  // Which file each chunk is in, and which chunk each vector row is, are checked as a search
  // returns them: a loop over 100,000 of each took 15–20 ms of a cold open in Chromium.
  const fileOf = (position: number): FileId => {
    const fileId = fileIds[chunkFiles[position] as number];
    if (fileId === undefined) throw new DamagedIndexError('Search snapshot: a chunk names no file');
    return fileId;
  };
  const positionOfVectorRow = (row: number): number => {
    const position = vectors.rows[row] as number;
    if (position >= count)
      throw new DamagedIndexError('Search snapshot: a vector row names no chunk');
    return position;
  };
  const vectorIds: RowIds = {
    length: vectors.rows.length,
    idOf: (row) => chunkIds[positionOfVectorRow(row)] as string,
  };
  const keywordIndex = openKeywordIndex(chunkIds, snapshot.keywords);
  const vectorIndex = restoreVectorIndex(vectorIds, vectors);
  return {
    // A chunk's record is made when a search returns it.
    retriever: createHybridRetrieverOver(
      {
        at: (position) => ({
          id: chunkIds[position] as string,
          fileId: fileOf(position),
          location: locations[position] as string,
        }),
        positionOfVectorRow,
      },
      keywordIndex,
      vectorIndex,
    ),
    chunkCount: count,
    hasAnyVector: snapshot.hasAnyVector,
    prepareScan: () => vectorIndex.prepareScan(),
  };
}

