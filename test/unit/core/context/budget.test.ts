import { describe, expect, it } from 'vitest';
import {
  allocateBudget,
  decideProjectMode,
  measureProjectFit,
  PROJECT_FIT_RATIO,
  resolveReservedOutput,
} from '../../../../src/core/context';
import { buildModelInfo, buildProjectFile } from '../../../builders';

describe('budget arithmetic', () => {
  it('gives the messages 95% of (window − reserved output) minus the tool definitions', () => {
    const model = buildModelInfo({ contextWindow: 10_000, maxOutputTokens: 2_000 });
    expect(allocateBudget(model, 2_000, 300)).toEqual({
      contextWindow: 10_000,
      reservedOutputTokens: 2_000,
      toolTokens: 300,
      inputBudget: 7_300,
    });
  });

  it('never reserves more than half the window for output, so input always has room', () => {
    const model = buildModelInfo({ contextWindow: 8_192, maxOutputTokens: 8_192 });
    expect(resolveReservedOutput(model)).toBe(4_096);
    expect(resolveReservedOutput(model, 1_000)).toBe(1_000);
  });

  it('never reports a negative budget', () => {
    const model = buildModelInfo({ contextWindow: 1_000, maxOutputTokens: 100 });
    expect(allocateBudget(model, 100, 5_000).inputBudget).toBe(0);
  });
});

describe('decideProjectMode', () => {
  const model = buildModelInfo({ contextWindow: 11_000, maxOutputTokens: 1_000 });
  const limit = 10_000 * PROJECT_FIT_RATIO;

  it('puts a project inline when its text is below 60% of (window − output)', () => {
    expect(
      decideProjectMode([buildProjectFile({ name: 'a.md', tokenCount: limit - 1 })], model),
    ).toBe('inline');
  });

  it('switches to search mode at 60% and above', () => {
    expect(decideProjectMode([buildProjectFile({ name: 'a.md', tokenCount: limit })], model)).toBe(
      'search',
    );
    const files = [
      buildProjectFile({ name: 'a.md', tokenCount: 4_000 }),
      buildProjectFile({ name: 'b.md', tokenCount: 2_500 }),
    ];
    expect(decideProjectMode(files, model)).toBe('search');
  });

  it('does not count files that have no text yet', () => {
    const files = [
      buildProjectFile({ name: 'a.md', tokenCount: 1_000 }),
      buildProjectFile({ name: 'scan.pdf', status: 'processing', tokenCount: 50_000 }),
    ];
    expect(decideProjectMode(files, model)).toBe('inline');
  });
});

describe('measureProjectFit', () => {
  const model = buildModelInfo({ contextWindow: 11_000, maxOutputTokens: 1_000 });

  it('reports the tokens, the inline limit and the verdict the turn and the projects panel share', () => {
    const files = [
      buildProjectFile({ name: 'a.md', tokenCount: 2_000 }),
      buildProjectFile({ name: 'b.md', tokenCount: 1_500 }),
    ];
    expect(measureProjectFit(files, model)).toEqual({ totalTokens: 3_500, inlineLimit: 6_000, mode: 'inline' });
  });

  it('moves the limit with the output the turn reserves', () => {
    const files = [buildProjectFile({ name: 'a.md', tokenCount: 5_000 })];
    const reservingMore = measureProjectFit(files, model, 4_000);
    expect(reservingMore.inlineLimit).toBe(7_000 * PROJECT_FIT_RATIO);
    expect(reservingMore.mode).toBe('search');
    expect(decideProjectMode(files, model, 4_000)).toBe('search');
  });
});
