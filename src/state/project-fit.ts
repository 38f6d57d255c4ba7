/**
 * Pure helpers behind the projects panel, the attachment chips and the upload list: whether a
 * project's files fit a model (the context engine's own rule), whether an attachment can be
 * sent at all, and how an ingest outcome reads to a person.
 */
import { allocateBudget, decideProjectMode, PROJECT_FIT_RATIO, resolveReservedOutput, sumProjectTokens } from '../core/context';
import type { ModelInfo, ProjectFile } from '../core/model';
import type { IngestOutcome, IngestStage } from '../workers/ingest/ingest.api';
import { showFileName } from '../util/file-name';

export type ProjectFitMode = 'inline' | 'search';

export interface EmbeddedCount {
  embedded: number;
  total: number;
}

export interface ProjectFit {
  totalTokens: number;
  /** The selected model's window; null without a model. */
  contextWindow: number | null;
  /** Tokens the files may take and still go inline; null without a model. */
  inlineLimit: number | null;
  mode: ProjectFitMode | null;
  modeLabel: string;
  /** How search works right now (keywords only, or hybrid); null when the files go inline. */
  searchLabel: string | null;
}

const formatCount = (value: number): string => value.toLocaleString('en-US');

export const KEYWORD_ONLY_LABEL = 'Keyword search only: the passages have no embeddings yet.';

/** The panel's fit-or-search line for these files and this model (decideProjectMode decides). */
export function describeProjectFit(
  files: readonly ProjectFile[],
  model: ModelInfo | null,
  embedded: EmbeddedCount | null,
): ProjectFit {
  const totalTokens = sumProjectTokens(files);
  if (model === null) {
    return {
      totalTokens,
      contextWindow: null,
      inlineLimit: null,
      mode: null,
      modeLabel: 'Choose a model to see whether the files fit in its context.',
      searchLabel: null,
    };
  }
  const reserved = resolveReservedOutput(model);
  const inlineLimit = Math.floor((model.contextWindow - reserved) * PROJECT_FIT_RATIO);
  const mode = decideProjectMode(files, model);
  return {
    totalTokens,
    contextWindow: model.contextWindow,
    inlineLimit,
    mode,
    modeLabel:
      mode === 'inline'
        ? 'All files in context'
        : `Searching the files: the project is larger than ${Math.round(PROJECT_FIT_RATIO * 100)}% of this model’s context`,
    searchLabel: mode === 'inline' ? null : describeSearch(embedded),
  };
}

function describeSearch(embedded: EmbeddedCount | null): string {
  if (embedded === null || embedded.embedded === 0) return KEYWORD_ONLY_LABEL;
  if (embedded.embedded < embedded.total) {
    return `Hybrid search: ${formatCount(embedded.embedded)} of ${formatCount(embedded.total)} passages embedded, the rest by keyword.`;
  }
  return 'Hybrid search: keywords and embeddings.';
}

/**
 * Refuses an attachment larger than the model's whole input budget, with the context engine's
 * failed-inclusion message (assembleContext's `file_too_large`), before anything is sent.
 */
export function checkAttachmentFits(
  attachment: { name: string; kind: 'text' | 'image'; tokenCount: number },
  model: ModelInfo | null,
): string | null {
  if (model === null || attachment.kind !== 'text') return null;
  const limit = allocateBudget(model, resolveReservedOutput(model), 0).inputBudget;
  if (attachment.tokenCount <= limit) return null;
  return `The file "${showFileName(attachment.name)}" has ${formatCount(attachment.tokenCount)} tokens, more than this model can take (${formatCount(limit)} tokens).`;
}

export type UploadStatus = 'working' | 'done' | 'duplicate' | 'failed' | 'cancelled';

/** One row of the upload list: its bar while working, then what became of the file. */
export interface UploadRow {
  key: string;
  name: string;
  /** `model`: the embedding model is downloading before this file's passages are embedded. */
  stage: IngestStage | 'model' | 'embed';
  fraction: number;
  status: UploadStatus;
  message: string | null;
  /** Known once the file is stored. */
  fileId?: string;
  /** While its passages are embedded: how many of them have a vector so far. */
  passages?: EmbeddedCount;
}

/** How the embedding after a stored file's reading ended, for its row's last word. */
export type UploadEmbedding =
  | { kind: 'embedded' }
  | { kind: 'cancelled'; passages: EmbeddedCount | null }
  | { kind: 'not_embedded' };

const STAGE_LABELS: Record<UploadRow['stage'], string> = {
  hash: 'Checking for duplicates',
  extract: 'Extracting text',
  count: 'Counting tokens',
  chunk: 'Chunking',
  model: 'Downloading the embedding model',
  embed: 'Waiting to embed',
  // A row still working at `done` is stored and about to be embedded or settled.
  done: 'Stored',
  failed: 'Failed',
};

export function describeStage(stage: UploadRow['stage']): string {
  return STAGE_LABELS[stage];
}

/**
 * What a row says: while working, its stage ("Embedding 12 of 40 passages" once the embedding
 * worker has counted them, "Waiting to embed" before); once settled, what became of the file.
 */
export function describeUploadRow(row: UploadRow): string {
  if (row.status !== 'working') return row.message ?? describeStage(row.stage);
  if (row.stage === 'embed' && row.passages !== undefined && row.passages.total > 0) {
    const { embedded, total } = row.passages;
    return `Embedding ${formatCount(embedded)} of ${formatCount(total)} ${total === 1 ? 'passage' : 'passages'}`;
  }
  return describeStage(row.stage);
}

function describeCancelledEmbedding(passages: EmbeddedCount | null): string {
  const done = passages === null || passages.embedded === 0 ? 'none' : `${formatCount(passages.embedded)} of ${formatCount(passages.total)}`;
  return ` Embedding cancelled (${done} embedded): the rest is found by keyword.`;
}

/**
 * The row after the worker's verdict on one file and, for a stored file, how its embedding
 * ended: a file whose embedding was cancelled is still in the project, so its row says ready
 * and what was left unembedded.
 */
export function settleUploadRow(
  row: UploadRow,
  outcome: IngestOutcome | undefined,
  embedding: UploadEmbedding = { kind: 'not_embedded' },
): UploadRow {
  if (outcome === undefined || outcome.kind === 'cancelled') {
    return { ...row, status: 'cancelled', message: 'Cancelled.' };
  }
  switch (outcome.kind) {
    case 'duplicate':
      return {
        ...row,
        status: 'duplicate',
        fraction: 1,
        stage: 'done',
        message: `Already in this project as "${showFileName(outcome.name)}".`,
      };
    case 'rejected':
      return { ...row, status: 'failed', stage: 'failed', fraction: 1, message: outcome.error.message };
    case 'stored':
      if (outcome.error) {
        return { ...row, status: 'failed', stage: 'failed', fraction: 1, message: outcome.error.message };
      }
      return {
        ...row,
        status: 'done',
        stage: 'done',
        fraction: 1,
        message:
          `Ready: ${formatCount(outcome.tokenCount)} tokens, ${outcome.chunkCount} ${outcome.chunkCount === 1 ? 'passage' : 'passages'}.` +
          (embedding.kind === 'cancelled' ? describeCancelledEmbedding(embedding.passages) : ''),
      };
  }
}

/** The file viewer's highlight: the cited character range, clamped to the text. */
export interface TextHighlight {
  before: string;
  marked: string;
  after: string;
}

export function splitHighlight(text: string, range: { charStart: number; charEnd: number } | null): TextHighlight {
  if (range === null) return { before: text, marked: '', after: '' };
  const start = Math.max(0, Math.min(range.charStart, text.length));
  const end = Math.max(start, Math.min(range.charEnd, text.length));
  return { before: text.slice(0, start), marked: text.slice(start, end), after: text.slice(end) };
}

/** A PDF page's slice of the extracted text, from the page map the ingest worker kept. */
export interface PageSlice {
  page: number;
  start: number;
  end: number;
}

export function slicePages(textLength: number, pageMap: readonly { page: number; offset: number }[]): PageSlice[] {
  const sorted = [...pageMap].sort((a, b) => a.offset - b.offset);
  return sorted.map((span, index) => ({
    page: span.page,
    start: span.offset,
    end: sorted[index + 1]?.offset ?? textLength,
  }));
}

/** The page holding a character offset (the cited passage's start), or the first page. */
export function findPageOf(pages: readonly PageSlice[], offset: number): number | null {
  const hit = pages.find((slice) => offset >= slice.start && offset < slice.end) ?? pages[0];
  return hit?.page ?? null;
}
