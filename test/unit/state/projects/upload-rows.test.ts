import { describe, expect, it } from 'vitest';
import { asFileId } from '../../../../src/core/model';
import { foldUploadRows, settleUploadRow, SHOWN_READY_ROWS, type UploadRow } from '../../../../src/state/projects/upload-rows';

const row: UploadRow = { key: '0', name: 'a.md', stage: 'chunk', fraction: 0.7, status: 'working', message: null };

describe('settleUploadRow', () => {
  it('reports tokens and passages of a stored file', () => {
    const settled = settleUploadRow(row, { kind: 'stored', fileId: asFileId('f'), status: 'ready', tokenCount: 1_234, chunkCount: 3 });
    expect(settled).toMatchObject({ status: 'done', fraction: 1, message: 'Ready: 1,234 tokens, 3 passages.' });
  });

  it('reports duplicates by the name already in the project', () => {
    const settled = settleUploadRow(row, { kind: 'duplicate', fileId: asFileId('f'), name: 'first.md' });
    expect(settled).toMatchObject({ status: 'duplicate', message: 'Already in this project as "first.md".' });
  });

  it('shows the worker’s error for a refused or unreadable file', () => {
    const refused = settleUploadRow(row, { kind: 'rejected', error: { code: 'unsupported_type', message: 'not supported' } });
    expect(refused).toMatchObject({ status: 'failed', message: 'not supported' });
    const kept = settleUploadRow(row, {
      kind: 'stored',
      fileId: asFileId('f'),
      status: 'error',
      tokenCount: 0,
      chunkCount: 0,
      error: { code: 'encrypted_pdf', message: 'The PDF is encrypted.' },
    });
    expect(kept).toMatchObject({ status: 'failed', message: 'The PDF is encrypted.' });
  });

  it('marks files the job never reached as cancelled', () => {
    expect(settleUploadRow(row, undefined).status).toBe('cancelled');
    expect(settleUploadRow(row, { kind: 'cancelled' }).status).toBe('cancelled');
  });
});

describe('foldUploadRows', () => {
  const build = (index: number, status: UploadRow['status']): UploadRow => ({ ...row, key: String(index), name: `f${index}.md`, status });

  it('draws every row of a small upload', () => {
    const rows = Array.from({ length: SHOWN_READY_ROWS }, (_, index) => build(index, 'done'));
    rows.push(build(99, 'working'));
    expect(foldUploadRows(rows)).toEqual({ shown: rows, folded: 0 });
  });

  it('folds the oldest ready rows of a large one, keeping rows still working or with something to say', () => {
    const statuses: UploadRow['status'][] = ['done', 'failed', 'done', 'duplicate', 'cancelled', 'working'];
    const rows = Array.from({ length: 3_000 }, (_, index) => build(index, statuses[index % statuses.length] ?? 'done'));
    const { shown, folded } = foldUploadRows(rows);
    const ready = rows.filter((candidate) => candidate.status === 'done');
    expect(folded).toBe(ready.length - SHOWN_READY_ROWS);
    // The newest ready rows stay, in the list's order; no other row is left out.
    expect(shown.filter((candidate) => candidate.status === 'done')).toEqual(ready.slice(-SHOWN_READY_ROWS));
    expect(shown.filter((candidate) => candidate.status !== 'done')).toEqual(rows.filter((candidate) => candidate.status !== 'done'));
    expect(shown.map((candidate) => Number(candidate.key))).toEqual([...shown.map((candidate) => Number(candidate.key))].sort((a, b) => a - b));
  });
});
