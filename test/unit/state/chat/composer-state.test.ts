import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionStore } from '../../../../src/core/ports';
import { ComposerState, type ComposerDeps } from '../../../../src/state/chat/composer.svelte';
import { NoticesState } from '../../../../src/state/shell/notices.svelte';
import type { WorkerResult } from '../../../../src/workers/agent/agent.api';
import { TestAgent } from '../../../fakes/test-agent';

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

describe('the context preview', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  const model = { providerId: 'p' as never, modelId: 'gpt-4o-mini' };
  const assembled = { totalTokens: 295, budget: { contextWindow: 128_000, inputBudget: 100_000 } } as never;

  function createPreviewingComposer(previewContext: ComposerDeps['agent']['previewContext']) {
    return new ComposerState({
      agent: { countTokens: () => Promise.resolve({ ok: true, value: 0 }), previewContext },
      sessions: {} as SessionStore,
      notices: new NoticesState(),
    });
  }

  it('asks again on its own when the worker was not ready, so the figure does not stay a dash', async () => {
    const replies: WorkerResult<never>[] = [
      { ok: false, error: { code: 'worker_setup', message: 'The worker did not start.' } },
      { ok: false, error: { code: 'internal', message: 'Busy.' } },
    ];
    const previewContext = vi.fn(() => Promise.resolve(replies.shift() ?? { ok: true as const, value: assembled }));
    const composer = createPreviewingComposer(previewContext);
    composer.follow(null, [model], []);
    await vi.advanceTimersByTimeAsync(400);
    expect(composer.preview).toBeNull();
    expect(composer.previewError?.code).toBe('worker_setup');
    await vi.advanceTimersByTimeAsync(3_000);
    expect(previewContext).toHaveBeenCalledTimes(3);
    expect(composer.preview).toBe(assembled);
    expect(composer.previewError).toBeNull();
    composer.dispose();
  });

  it('does not keep asking about a request that cannot succeed, and gives up on a lasting failure', async () => {
    const refused = vi.fn(() => Promise.resolve({ ok: false as const, error: { code: 'no_provider', message: 'That provider is no longer configured.' } }));
    const composer = createPreviewingComposer(refused);
    composer.follow(null, [model], []);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(refused).toHaveBeenCalledTimes(1);
    composer.dispose();

    const failing = vi.fn(() => Promise.reject(new Error('The worker crashed.')));
    const other = createPreviewingComposer(failing);
    other.follow(null, [model], []);
    await vi.advanceTimersByTimeAsync(60_000);
    // The first try and three retries, then the dash stays with the reason in its title.
    expect(failing).toHaveBeenCalledTimes(4);
    expect(other.previewError?.message).toBe('The worker crashed.');
    other.dispose();
  });
});
