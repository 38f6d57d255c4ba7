import { describe, expect, it } from 'vitest';
import { asFileId, type ModelInfo, type ProjectFile } from '../../../src/core/model';
import {
  KEYWORD_ONLY_LABEL,
  checkAttachmentFits,
  describeProjectFit,
  findPageOf,
  settleUploadRow,
  slicePages,
  splitHighlight,
  type UploadRow,
} from '../../../src/state/project-fit';

function buildModel(contextWindow: number, maxOutputTokens = 1_000): ModelInfo {
  return {
    id: 'test-model',
    contextWindow,
    maxOutputTokens,
    hasVision: false,
    hasTools: true,
    hasReasoning: false,
    encoding: 'o200k_base',
    isEstimate: false,
  };
}

function buildFile(tokenCount: number, status: ProjectFile['status'] = 'ready'): ProjectFile {
  return { id: asFileId(`f${tokenCount}${status}`), name: 'notes.md', mimeType: 'text/markdown', sizeBytes: 10, status, tokenCount };
}

const row: UploadRow = { key: '0', name: 'a.md', stage: 'chunk', fraction: 0.7, status: 'working', message: null };

describe('describeProjectFit', () => {
  it('puts all files in context while they take less than 60% of window minus output', () => {
    const fit = describeProjectFit([buildFile(2_000), buildFile(3_000)], buildModel(10_000), null);
    expect(fit).toMatchObject({ totalTokens: 5_000, contextWindow: 10_000, inlineLimit: 5_400, mode: 'inline' });
    expect(fit.modeLabel).toBe('All files in context');
    expect(fit.searchLabel).toBeNull();
  });

  it('switches to search when the same files meet a smaller window', () => {
    const fit = describeProjectFit([buildFile(2_000), buildFile(3_000)], buildModel(8_192), null);
    expect(fit.mode).toBe('search');
    expect(fit.modeLabel).toBe('Searching the files: the project is larger than 60% of this model’s context');
    expect(fit.searchLabel).toBe(KEYWORD_ONLY_LABEL);
  });

  it('counts only files whose text is ready', () => {
    const fit = describeProjectFit([buildFile(100), buildFile(9_000, 'no_text')], buildModel(8_192), null);
    expect(fit.totalTokens).toBe(100);
  });

  it('says keyword search only until passages carry embeddings, then hybrid', () => {
    const files = [buildFile(9_000)];
    const model = buildModel(8_192);
    expect(describeProjectFit(files, model, { embedded: 0, total: 20 }).searchLabel).toBe(KEYWORD_ONLY_LABEL);
    expect(describeProjectFit(files, model, { embedded: 5, total: 20 }).searchLabel).toContain('5 of 20 passages embedded');
    expect(describeProjectFit(files, model, { embedded: 20, total: 20 }).searchLabel).toBe('Hybrid search: keywords and embeddings.');
  });

  it('asks for a model when none is selected', () => {
    const fit = describeProjectFit([buildFile(10)], null, null);
    expect(fit.mode).toBeNull();
    expect(fit.modeLabel).toMatch(/Choose a model/);
  });
});

describe('checkAttachmentFits', () => {
  it('refuses a text file larger than the input budget with the context engine’s message', () => {
    // (8,192 − 1,000 reserved) × 0.95 = 6,832 tokens of input.
    expect(checkAttachmentFits({ name: 'big.txt', kind: 'text', tokenCount: 6_833 }, buildModel(8_192))).toBe(
      'The file "big.txt" has 6,833 tokens, more than this model can take (6,832 tokens).',
    );
    expect(checkAttachmentFits({ name: 'ok.txt', kind: 'text', tokenCount: 6_832 }, buildModel(8_192))).toBeNull();
  });

  it('leaves images and model-less drafts alone', () => {
    expect(checkAttachmentFits({ name: 'p.png', kind: 'image', tokenCount: 99_999 }, buildModel(8_192))).toBeNull();
    expect(checkAttachmentFits({ name: 'a.txt', kind: 'text', tokenCount: 99_999 }, null)).toBeNull();
  });
});

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

describe('file viewer helpers', () => {
  it('splits the text around the cited range, clamped to the text', () => {
    expect(splitHighlight('abcdef', { charStart: 2, charEnd: 4 })).toEqual({ before: 'ab', marked: 'cd', after: 'ef' });
    expect(splitHighlight('abc', { charStart: 2, charEnd: 99 })).toEqual({ before: 'ab', marked: 'c', after: '' });
    expect(splitHighlight('abc', null)).toEqual({ before: 'abc', marked: '', after: '' });
  });

  it('slices pages from the page map and finds the page of an offset', () => {
    const pages = slicePages(30, [
      { page: 2, offset: 10 },
      { page: 1, offset: 0 },
      { page: 3, offset: 20 },
    ]);
    expect(pages).toEqual([
      { page: 1, start: 0, end: 10 },
      { page: 2, start: 10, end: 20 },
      { page: 3, start: 20, end: 30 },
    ]);
    expect(findPageOf(pages, 15)).toBe(2);
    expect(findPageOf(pages, 29)).toBe(3);
    expect(findPageOf([], 5)).toBeNull();
  });
});
