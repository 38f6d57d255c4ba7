import { describe, expect, it } from 'vitest';
import { findGrownFrom } from '../../../src/util/grown-from';

describe('findGrownFrom', () => {
  it('counts the items put in front of the previous list, with or without some behind it', () => {
    expect(findGrownFrom(['c', 'd'], ['a', 'b', 'c', 'd'])).toBe(2);
    expect(findGrownFrom(['c', 'd'], ['a', 'b', 'c', 'd', 'e'])).toBe(2);
    expect(findGrownFrom(['c', 'd'], ['c', 'd', 'e'])).toBe(0);
    expect(findGrownFrom(['c', 'd'], ['c', 'd'])).toBe(0);
  });

  it('answers -1 for any other change', () => {
    expect(findGrownFrom(['c', 'd'], ['c'])).toBe(-1);
    expect(findGrownFrom(['c', 'd'], ['a', 'c', 'x', 'd'])).toBe(-1);
    expect(findGrownFrom(['c', 'd'], ['a', 'c', 'x'])).toBe(-1);
    expect(findGrownFrom(['c', 'd'], ['d', 'c'])).toBe(-1);
    expect(findGrownFrom([], ['a'])).toBe(-1);
  });

  it('compares by reference: an equal copy of an item is a different item', () => {
    const item = { id: 1 };
    expect(findGrownFrom([item], [{ id: 0 }, item])).toBe(1);
    expect(findGrownFrom([item], [{ id: 0 }, { id: 1 }])).toBe(-1);
  });
});
