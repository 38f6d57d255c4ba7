import { describe, expect, it } from 'vitest';
import { asFileId, asProjectId } from '../../../../src/core/model';
import type {
  ProjectSearchRequest,
  ProjectSearchResult,
  WorkerResult,
} from '../../../../src/workers/agent/agent.api';
import { ProjectSearchState } from '../../../../src/state/projects/project-search.svelte';
import { ManualScheduler } from '../../../fakes/manual-scheduler';

const PROJECT = asProjectId('p1');

const keywordResult = (text: string): WorkerResult<ProjectSearchResult> => ({
  ok: true,
  value: {
    mode: 'keyword',
    keywordOnlyReason: 'not_embedded',
    hits: [
      {
        fileId: asFileId('f1'),
        fileName: 'notes.md',
        mimeType: 'text/markdown',
        text,
        location: 'chars 0–10',
        score: 1,
      },
    ],
  },
});

interface Call {
  request: ProjectSearchRequest;
  signal: AbortSignal;
  answer(result: WorkerResult<ProjectSearchResult>): void;
  fail(error: unknown): void;
}

/** A search the test answers by hand, in any order, recording what was asked. */
function createManualSearch() {
  const calls: Call[] = [];
  const search = (request: ProjectSearchRequest, signal: AbortSignal) =>
    new Promise<WorkerResult<ProjectSearchResult>>((resolve, reject) => {
      calls.push({ request, signal, answer: resolve, fail: reject });
    });
  return { calls, search };
}

function createState(isOnline = true) {
  const scheduler = new ManualScheduler();
  const manual = createManualSearch();
  const state = new ProjectSearchState({
    search: manual.search,
    schedule: (callback, ms) => scheduler.schedule(callback, ms),
    isOnline: () => isOnline,
  });
  return { state, scheduler, calls: manual.calls };
}

/** Lets the awaited search settle. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('ProjectSearchState', () => {
  it('waits for typing to pause, then searches the last query once', async () => {
    const { state, scheduler, calls } = createState();
    state.setQuery(PROJECT, 'esp');
    state.setQuery(PROJECT, 'espresso');
    expect(state.phase).toBe('pending');
    expect(calls).toHaveLength(0);
    expect(scheduler.pendingCount).toBe(1);

    scheduler.runPending();
    expect(calls.map((call) => call.request)).toEqual([{ projectId: PROJECT, query: 'espresso' }]);
    expect(state.phase).toBe('searching');
    calls[0]?.answer(keywordResult('Espresso needs a fine grind.'));
    await settle();
    expect(state.phase).toBe('done');
    expect(state.outcome).toMatchObject({ query: 'espresso', mode: 'keyword', isOnline: true });
    expect(state.outcome?.hits[0]?.fileName).toBe('notes.md');
  });

  it('cancels a search that a newer query superseded, and never shows its late answer', async () => {
    const { state, scheduler, calls } = createState();
    state.setQuery(PROJECT, 'grind');
    scheduler.runPending();
    state.setQuery(PROJECT, 'water');
    expect(calls[0]?.signal.aborted).toBe(true);
    scheduler.runPending();
    calls[1]?.answer(keywordResult('Use water between ninety and ninety six degrees.'));
    calls[0]?.answer(keywordResult('Espresso needs a fine grind.'));
    await settle();
    expect(state.outcome?.query).toBe('water');
    expect(state.outcome?.hits[0]?.text).toContain('water');
  });

  it('searches at once on Enter, dropping the pending debounce', async () => {
    const { state, scheduler, calls } = createState(false);
    state.setQuery(PROJECT, '  Lisbon  ');
    const submitted = state.submit(PROJECT);
    expect(scheduler.pendingCount).toBe(0);
    expect(calls.map((call) => call.request.query)).toEqual(['  Lisbon  ']);
    calls[0]?.answer(keywordResult('The Lisbon office opens in March.'));
    await submitted;
    expect(state.outcome).toMatchObject({ query: 'Lisbon', isOnline: false });
  });

  it('clears the results and cancels the search when the box is emptied', async () => {
    const { state, scheduler, calls } = createState();
    state.setQuery(PROJECT, 'grind');
    scheduler.runPending();
    calls[0]?.answer(keywordResult('Espresso needs a fine grind.'));
    await settle();
    state.setQuery(PROJECT, 'grinder');
    scheduler.runPending();
    state.setQuery(PROJECT, '');
    expect(calls[1]?.signal.aborted).toBe(true);
    expect(state.phase).toBe('idle');
    expect(state.outcome).toBeNull();
    expect(scheduler.pendingCount).toBe(0);
  });

  it('shows a clear error when the search fails or the worker is gone, and no stale results', async () => {
    const { state, scheduler, calls } = createState();
    state.setQuery(PROJECT, 'grind');
    scheduler.runPending();
    calls[0]?.answer(keywordResult('Espresso needs a fine grind.'));
    await settle();

    state.setQuery(PROJECT, 'water');
    scheduler.runPending();
    calls[1]?.answer({
      ok: false,
      error: { code: 'quota_exceeded', message: 'QuotaExceededError' },
    });
    await settle();
    expect(state.phase).toBe('failed');
    expect(state.outcome).toBeNull();
    expect(state.error).toBe(
      'Could not search the files: The browser storage for Carrel is full. Export or delete old chats, then try again.',
    );

    state.setQuery(PROJECT, 'salt');
    scheduler.runPending();
    calls[2]?.fail(new Error('The worker stopped.'));
    await settle();
    expect(state.error).toBe('Could not search the files: The worker stopped.');
  });

  it('forgets everything on reset (another project opened)', async () => {
    const { state, scheduler, calls } = createState();
    state.setQuery(PROJECT, 'grind');
    scheduler.runPending();
    state.reset();
    calls[0]?.answer(keywordResult('Espresso needs a fine grind.'));
    await settle();
    expect(calls[0]?.signal.aborted).toBe(true);
    expect({ query: state.query, phase: state.phase, outcome: state.outcome }).toEqual({
      query: '',
      phase: 'idle',
      outcome: null,
    });
  });
});
