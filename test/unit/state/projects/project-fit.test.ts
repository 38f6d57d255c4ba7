import { describe, expect, it } from 'vitest';
import { asFileId, type ModelInfo, type ProjectFile } from '../../../../src/core/model';
import { KEYWORD_ONLY_LABEL, checkAttachmentFits, describeProjectFit } from '../../../../src/state/projects/project-fit';

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
