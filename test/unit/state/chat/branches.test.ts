import { describe, expect, it } from 'vitest';
import { asMessageId } from '../../../../src/core/model';
import { formatSiblingLabel, pickSibling } from '../../../../src/state/chat/branches';

const ids = ['m1', 'm2', 'm3'].map(asMessageId);

describe('branch switching', () => {
  it('moves to the previous and next sibling', () => {
    expect(pickSibling({ index: 1, count: 3, ids }, -1)).toBe('m1');
    expect(pickSibling({ index: 1, count: 3, ids }, 1)).toBe('m3');
  });

  it('stops at either end instead of wrapping around', () => {
    expect(pickSibling({ index: 0, count: 3, ids }, -1)).toBeNull();
    expect(pickSibling({ index: 2, count: 3, ids }, 1)).toBeNull();
  });

  it('labels the position 1-based', () => {
    expect(formatSiblingLabel({ index: 0, count: 2, ids: ids.slice(0, 2) })).toBe('1/2');
  });
});
