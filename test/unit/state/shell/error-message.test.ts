import { describe, expect, it } from 'vitest';
import { describeError, isAbortError } from '../../../../src/state/shell/error-message';

describe('describeError', () => {
  it('ignores aborts, whether a DOMException, a named error or a stopped run', () => {
    expect(describeError(new DOMException('The user aborted a request.', 'AbortError'))).toBeNull();
    expect(describeError(Object.assign(new Error('x'), { name: 'AbortError' }))).toBeNull();
    expect(describeError({ code: 'user_cancelled', message: 'Stopped' })).toBeNull();
    expect(isAbortError(new Error('boom'))).toBe(false);
  });

  it('says what was being done and ends the message as a sentence', () => {
    expect(describeError(new Error('session 1 no longer exists'), 'Could not rename the chat')).toBe(
      'Could not rename the chat: Session 1 no longer exists.',
    );
  });

  it('replaces technical messages of known codes with what to do', () => {
    expect(describeError({ code: 'quota_exceeded', message: 'QuotaExceededError' })).toMatch(/storage .* is full/i);
  });

  it('still says something useful for an error without a message', () => {
    expect(describeError({})).toMatch(/something went wrong/i);
    expect(describeError('  ')).toBe('Something went wrong.');
  });
});
