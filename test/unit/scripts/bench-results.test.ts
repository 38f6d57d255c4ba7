import { describe, expect, it } from 'vitest';
import { describeFailure, mergeSections, type BenchSection } from '../../../scripts/bench-results.mjs';

const measuredBefore: BenchSection = {
  id: 'embeddings',
  title: '6. Embeddings',
  figures: [{ name: 'chunks/s' }],
  values: [{ name: 'lowest cosine' }],
  notes: ['Run of last week: the figures were these.'],
  seconds: 300,
  date: '2026-11-26T16:41:31.183Z',
};
const failure = { why: 'exit code 1', date: '2026-11-27T23:00:00.000Z', seconds: 2 };

describe('the results a bench run leaves', () => {
  it('keeps what a failed section measured before, notes and all, and says the run failed above it', () => {
    const [section] = mergeSections(['embeddings'], [{ id: 'embeddings', failure }], [measuredBefore], undefined);
    expect(section).toEqual({ ...measuredBefore, failure });
    expect(describeFailure(section as BenchSection)).toBe(
      '**The run of 2026-11-27T23:00:00.000Z failed** (exit code 1; see its console output): the figures below are those measured on 2026-11-26T16:41:31.183Z.',
    );
  });

  it('drops the failure once the section runs again, and keeps the order of the benches', () => {
    const failedBefore = { ...measuredBefore, failure };
    const fresh: BenchSection = { id: 'embeddings', title: '6. Embeddings', figures: [{ name: 'new' }], values: [], notes: [], date: '2026-11-28T00:00:00.000Z' };
    const other: BenchSection = { id: 'storage', title: '4. Storage', figures: [], values: [{ name: 'x' }], notes: [] };
    const merged = mergeSections(['storage', 'embeddings', 'missing'], [fresh], [failedBefore, other], '2026-11-20T00:00:00.000Z');
    expect(merged).toEqual([{ ...other, date: '2026-11-20T00:00:00.000Z' }, fresh]);
    expect(describeFailure(fresh)).toBeNull();
  });

  it('records a section that failed with nothing measured before as failed and empty', () => {
    const [section] = mergeSections(['generation'], [{ id: 'generation', failure }], [], undefined);
    expect(section).toMatchObject({ id: 'generation', title: 'generation', figures: [], values: [], failure, date: failure.date });
    expect(describeFailure(section as BenchSection)).toContain('nothing was measured before');
  });
});
