import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  chunkText,
  formatChunkLocation,
  type RetrievalChunk,
  type RetrievalHit,
} from '../../../../src/core/rag';
import { countStoredTokens } from '../../../builders/tokens';

export const CORPUS_DIR = join(import.meta.dirname, '../../../fixtures/documents/corpus');
/** Small chunks so every file yields several and ranking inside a file matters. */
export const CORPUS_CHUNK_TOKENS = 80;

const knownAnswerSchema = z.object({ query: z.string(), file: z.string(), answer: z.string() });
export type KnownAnswer = z.infer<typeof knownAnswerSchema>;

export function loadKnownAnswers(): KnownAnswer[] {
  return z
    .array(knownAnswerSchema)
    .parse(JSON.parse(readFileSync(join(CORPUS_DIR, 'queries.json'), 'utf8')));
}

/** The SQLite C interface documentation, with questions labelled by the section answering them. */
export const SQLITE_API_DIR = join(import.meta.dirname, '../../../fixtures/documents/sqlite-api');

const labelledQuestionSchema = z.object({ query: z.string(), section: z.string() });
export type LabelledQuestion = z.infer<typeof labelledQuestionSchema>;

export function loadLabelledQuestions(directory: string): LabelledQuestion[] {
  return z
    .array(labelledQuestionSchema)
    .parse(JSON.parse(readFileSync(join(directory, 'queries.json'), 'utf8')));
}

export type CorpusChunk = RetrievalChunk & {
  fileName: string;
  location: string;
  headingPath: string[];
};

/** The Markdown files of a fixture folder (its README.md aside), chunked as the ingest worker does. */
export function loadCorpusChunks(
  directory = CORPUS_DIR,
  targetTokens = CORPUS_CHUNK_TOKENS,
): CorpusChunk[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .sort()
    .flatMap((fileName) => {
      const text = readFileSync(join(directory, fileName), 'utf8');
      return chunkText({ text, kind: 'markdown' }, countStoredTokens, { targetTokens }).map(
        (chunk) => ({
          id: `${fileName}#${chunk.ordinal}`,
          fileId: fileName,
          fileName,
          title: [fileName, ...chunk.headingPath].join(' '),
          text: chunk.text,
          location: formatChunkLocation(chunk),
          headingPath: chunk.headingPath,
          embedding: null,
          embeddingModel: null,
        }),
      );
    });
}

/** Share of queries whose answer passage is among the first `k` hits. */
export function measureRecall(
  answers: readonly KnownAnswer[],
  search: (query: string) => ReadonlyArray<RetrievalHit<CorpusChunk>>,
  k = 5,
): { recall: number; missed: string[] } {
  const missed = answers.filter(
    (answer) =>
      !search(answer.query)
        .slice(0, k)
        .some(
          (hit) => hit.chunk.fileName === answer.file && hit.chunk.text.includes(answer.answer),
        ),
  );
  return {
    recall: (answers.length - missed.length) / answers.length,
    missed: missed.map((answer) => answer.query),
  };
}
