import { describe, expect, it } from 'vitest';
import { findPageOf, slicePages, splitHighlight } from '../../../../src/state/projects/file-text';

describe('file viewer helpers', () => {
  it('splits the text around the cited range, clamped to the text', () => {
    expect(splitHighlight('abcdef', { charStart: 2, charEnd: 4 })).toEqual({ before: 'ab', marked: 'cd', after: 'ef' });
    expect(splitHighlight('abc', { charStart: 2, charEnd: 99 })).toEqual({ before: 'ab', marked: 'c', after: '' });
    expect(splitHighlight('abc', null)).toEqual({ before: 'abc', marked: '', after: '' });
  });

  it('slices pages from the page map and finds the page of an offset', () => {
    const pages = slicePages(30, [
      { page: 2, offset: 10 },
      { page: 1, offset: 0 },
      { page: 3, offset: 20 },
    ]);
    expect(pages).toEqual([
      { page: 1, start: 0, end: 10 },
      { page: 2, start: 10, end: 20 },
      { page: 3, start: 20, end: 30 },
    ]);
    expect(findPageOf(pages, 15)).toBe(2);
    expect(findPageOf(pages, 29)).toBe(3);
    expect(findPageOf([], 5)).toBeNull();
  });
});
