import { describe, expect, it } from 'vitest';
import { createUpdatePrompt, type UpdateStatus } from '../../../src/pwa/update-prompt';
import { ManualScheduler } from '../../fakes/manual-scheduler';

function setUp(options: { isRunning?: boolean; activation?: () => Promise<void> } = {}) {
  const scheduler = new ManualScheduler();
  const calls: string[] = [];
  let isRunning = options.isRunning ?? false;
  const prompt = createUpdatePrompt({
    isGenerationRunning: () => isRunning,
    activateUpdate: () => {
      calls.push('activate');
      return options.activation ? options.activation() : Promise.resolve();
    },
    reload: () => calls.push('reload'),
    scheduler,
    onError: (error) => calls.push(`error: ${String(error)}`),
  });
  const statuses: UpdateStatus[] = [];
  prompt.subscribe((status) => statuses.push(status));
  return {
    prompt,
    scheduler,
    calls,
    statuses,
    finishGeneration: () => (isRunning = false),
    startGeneration: () => (isRunning = true),
  };
}

describe('update prompt', () => {
  it('shows the prompt when a new version is waiting and does nothing until the person accepts', () => {
    const { prompt, calls, scheduler } = setUp();
    prompt.notifyUpdateReady();
    expect(prompt.status).toBe('ready');
    scheduler.runPending();
    expect(calls).toEqual([]);
  });

  it('activates the waiting version at once when accepted while nothing is generating', () => {
    const { prompt, calls, statuses } = setUp();
    prompt.notifyUpdateReady();
    prompt.accept();
    expect(calls).toEqual(['activate']);
    expect(statuses).toEqual(['ready', 'updating']);
  });

  it('waits for the running generation to finish before activating an accepted update', () => {
    const { prompt, calls, scheduler, finishGeneration } = setUp({ isRunning: true });
    prompt.notifyUpdateReady();
    prompt.accept();
    expect(prompt.status).toBe('waiting-for-generation');
    scheduler.runPending();
    scheduler.runPending();
    expect(calls).toEqual([]);
    finishGeneration();
    scheduler.runPending();
    expect(calls).toEqual(['activate']);
    expect(prompt.status).toBe('updating');
    expect(scheduler.pendingCount).toBe(0);
  });

  it('ignores accept when no update is waiting', () => {
    const { prompt, calls } = setUp();
    prompt.accept();
    expect(calls).toEqual([]);
    expect(prompt.status).toBe('idle');
  });

  it('"Later" hides the prompt and cancels a deferred activation', () => {
    const { prompt, calls, scheduler, finishGeneration } = setUp({ isRunning: true });
    prompt.notifyUpdateReady();
    prompt.accept();
    prompt.dismiss();
    finishGeneration();
    scheduler.runPending();
    expect(prompt.status).toBe('idle');
    expect(calls).toEqual([]);
  });

  it('reloads once the new version controls the page, but never during a generation', () => {
    const { prompt, calls, scheduler, startGeneration, finishGeneration } = setUp();
    prompt.notifyUpdateReady();
    prompt.accept();
    // The person started a new answer between accepting and the new worker taking over.
    startGeneration();
    prompt.notifyControllerChanged();
    expect(calls).toEqual(['activate']);
    expect(prompt.status).toBe('waiting-for-generation');
    // A pending reload cannot be dismissed: the old code's files may already be gone.
    prompt.dismiss();
    finishGeneration();
    scheduler.runPending();
    expect(calls).toEqual(['activate', 'reload']);
  });

  it('offers the prompt again when the waiting version cannot be activated', async () => {
    const { prompt, calls } = setUp({
      activation: () => Promise.reject(new Error('no waiting worker')),
    });
    prompt.notifyUpdateReady();
    prompt.accept();
    await Promise.resolve();
    await Promise.resolve();
    expect(prompt.status).toBe('ready');
    expect(calls).toEqual(['activate', 'error: Error: no waiting worker']);
  });
});
