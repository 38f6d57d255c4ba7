import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ACTION_TOAST_MS,
  ERROR_TOAST_MS,
  INFO_TOAST_MS,
  NoticesState,
} from '../../../../src/state/shell/notices.svelte';

describe('toasts', () => {
  let notices: NoticesState;
  beforeEach(() => {
    vi.useFakeTimers();
    notices = new NoticesState();
  });
  afterEach(() => {
    notices.dispose();
    vi.useRealTimers();
  });

  const messages = () => notices.toasts.map((toast) => toast.message);

  it('closes a notice after its time, a notice with Undo and an error later, running the expiry once', () => {
    const expired = vi.fn();
    notices.notify('Saved.');
    notices.notify('Deleted "Volcanoes".', {
      action: { label: 'Undo', run: () => {} },
      onExpire: expired,
    });
    notices.report(new Error('disk full'), 'Could not save');
    expect(messages()).toHaveLength(3);
    vi.advanceTimersByTime(INFO_TOAST_MS);
    expect(messages()).toEqual(['Deleted "Volcanoes".', expect.stringContaining('Could not save')]);
    vi.advanceTimersByTime(Math.max(ACTION_TOAST_MS, ERROR_TOAST_MS) - INFO_TOAST_MS);
    expect(messages()).toEqual([]);
    expect(expired).toHaveBeenCalledOnce();
  });

  it('stands still while held and resumes with the time it had left', () => {
    const expired = vi.fn();
    notices.notify('Deleted "Volcanoes".', {
      action: { label: 'Undo', run: () => {} },
      onExpire: expired,
    });
    vi.advanceTimersByTime(ACTION_TOAST_MS - 1_000);
    notices.hold('pointer');
    vi.advanceTimersByTime(60_000);
    expect(messages()).toEqual(['Deleted "Volcanoes".']);
    notices.release('pointer');
    vi.advanceTimersByTime(999);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledOnce();
    expect(messages()).toEqual([]);
  });

  it('resumes only when every reason to hold has ended, and a toast shown meanwhile waits too', () => {
    notices.hold('hidden');
    notices.hold('focus');
    notices.notify('Archived "Volcanoes".');
    vi.advanceTimersByTime(INFO_TOAST_MS * 10);
    notices.release('hidden');
    vi.advanceTimersByTime(INFO_TOAST_MS * 10);
    expect(messages()).toEqual(['Archived "Volcanoes".']);
    expect(notices.isHeld).toBe(true);
    notices.release('focus');
    // Releasing twice, or a reason never held, changes nothing.
    notices.release('focus');
    notices.release('pointer');
    vi.advanceTimersByTime(INFO_TOAST_MS - 1);
    expect(messages()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(messages()).toEqual([]);
  });

  it('Undo runs the action and never the expiry, even when time runs on afterwards', () => {
    const undone = vi.fn();
    const expired = vi.fn();
    const id = notices.notify('Deleted the prompt "Summarise".', {
      action: { label: 'Undo', run: undone },
      onExpire: expired,
    });
    notices.hold('pointer');
    notices.act(id);
    notices.release('pointer');
    vi.advanceTimersByTime(ACTION_TOAST_MS * 2);
    expect(undone).toHaveBeenCalledOnce();
    expect(expired).not.toHaveBeenCalled();
    expect(messages()).toEqual([]);
  });
});
