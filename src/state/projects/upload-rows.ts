/** The upload list's rows: each file's stage while it is read, then what became of it, in words. */
import type { IngestOutcome, IngestStage } from '../../workers/ingest/ingest.api';
import { showFileName } from '../../util/file-name';
import { formatCount } from '../chat/usage-label';
import type { EmbeddedCount } from './project-fit';

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

/** Rows of files that became ready drawn at most: past these, the oldest fold into one line. */
export const SHOWN_READY_ROWS = 20;

/**
 * The rows the upload list draws: every row still working or with something to say (failed,
 * duplicate, cancelled), and the newest SHOWN_READY_ROWS of those that became ready, in order;
 * the other ready rows are counted in `folded` (the file list below names them). A folder of
 * thousands of files then draws a screenful of rows, not thousands laid out again on every step.
 */
export function foldUploadRows(rows: readonly UploadRow[]): { shown: UploadRow[]; folded: number } {
  let ready = 0;
  for (const row of rows) if (row.status === 'done') ready++;
  const folded = Math.max(0, ready - SHOWN_READY_ROWS);
  let skip = folded;
  const shown = rows.filter((row) => {
    if (row.status !== 'done' || skip === 0) return true;
    skip--;
    return false;
  });
  return { shown, folded };
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
