import { describe, expect, it } from 'vitest';
import { asFileId } from '../../../../src/core/model';
import { settleUploadRow, type UploadRow } from '../../../../src/state/projects/upload-rows';

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
