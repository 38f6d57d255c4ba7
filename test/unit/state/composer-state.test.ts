import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionStore } from '../../../src/core/ports';
import { ComposerState, type ComposerDeps } from '../../../src/state/composer.svelte';
import { NoticesState } from '../../../src/state/notices.svelte';
import type { WorkerResult } from '../../../src/workers/agent/agent.api';
import { TestAgent } from '../../fakes/test-agent';

/** A count request the test answers when it chooses (the worker's reply arriving late). */
interface PendingCount {
  text: string;
  reply(result: WorkerResult<number>): void;
}

function createComposer(countTokens: ComposerDeps['agent']['countTokens']) {
  const notices = new NoticesState();
  const composer = new ComposerState({
    agent: {
      countTokens,
      previewContext: () => Promise.resolve({ ok: false, error: { code: 'no_provider', message: 'No model.' } }),
    },
    sessions: {} as SessionStore,
    notices,
  });
  return { composer, notices };
}

/** A composer whose count requests wait for the test to answer them. */
function createManuallyCountedComposer() {
  const pending: PendingCount[] = [];
  const countTokens = vi.fn(
    (text: string) =>
      new Promise<WorkerResult<number>>((resolve) => {
        pending.push({ text, reply: resolve });
      }),
  );
  return { pending, countTokens, ...createComposer(countTokens) };
}

/** Lets the debounce fire and the worker's answer land. */
async function settle(): Promise<void> {
  await vi.advanceTimersByTimeAsync(1_000);
}

describe('the draft’s token count', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('shows what the agent worker counts for the draft, as the context engine counts it', async () => {
    // The stores under the host need real timers to open.
    vi.useRealTimers();
    const agent = await TestAgent.create();
    vi.useFakeTimers();
    const { composer } = createComposer((text) => agent.api.countTokens(text));
    const draft = 'Summarise the design note, with its tables and code, in three short paragraphs.';
    composer.setDraft(draft);
    await settle();
    expect(composer.draftTokens).toBe(agent.tokens.count(draft));
    expect(composer.draftTokens).toBeGreaterThan(10);
  });

  it('asks once for a burst of keystrokes, for the newest draft', async () => {
    const { pending, composer } = createManuallyCountedComposer();
    for (const draft of ['H', 'He', 'Hel', 'Hello']) composer.setDraft(draft);
    await settle();
    expect(pending.map((request) => request.text)).toEqual(['Hello']);
    pending[0]?.reply({ ok: true, value: 1 });
    await settle();
    expect(composer.draftTokens).toBe(1);
  });

  it('never shows a count that arrives after the draft changed', async () => {
    const { pending, composer } = createManuallyCountedComposer();
    composer.setDraft('first draft');
    await settle();
    composer.setDraft('first draft, made longer');
    await settle();
    pending[1]?.reply({ ok: true, value: 6 });
    pending[0]?.reply({ ok: true, value: 2 });
    await settle();
    expect(composer.draftTokens).toBe(6);
  });

  it('shows zero at once when the draft is sent, whatever was still being counted', async () => {
    const { pending, composer } = createManuallyCountedComposer();
    composer.setDraft('a question');
    await settle();
    composer.clearSent('a question');
    expect(composer.draftTokens).toBe(0);
    pending[0]?.reply({ ok: true, value: 2 });
    await settle();
    expect(composer.draftTokens).toBe(0);
    expect(pending).toHaveLength(1);
  });

  it('keeps what the person typed after sending when the sent message is stored', () => {
    const { composer } = createManuallyCountedComposer();
    composer.setDraft('a question');
    composer.setDraft('a question, and another');
    composer.clearSent('a question');
    expect(composer.draft).toBe('a question, and another');
  });

  it('says once that the draft cannot be counted, and shows the count as unknown', async () => {
    const { composer, notices } = createComposer(() =>
      Promise.resolve({ ok: false, error: { code: 'worker_setup', message: 'The worker did not start.' } }),
    );
    const report = vi.spyOn(notices, 'report');
    composer.setDraft('one');
    await settle();
    composer.setDraft('one two');
    await settle();
    expect(composer.draftTokens).toBeNull();
    expect(report).toHaveBeenCalledTimes(1);
  });
});
