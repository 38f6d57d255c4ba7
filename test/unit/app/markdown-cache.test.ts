import { describe, expect, it, vi } from 'vitest';
import { renderMarkdown } from '../../../src/app/lib/markdown';

// No DOM in Node: the sanitizer passes the HTML through (its own tests run in the browser).
vi.mock('dompurify', () => ({ default: { sanitize: (html: string) => html, addHook: () => undefined } }));

/** More distinct renders than the cache holds (its limit is 500). */
const FLOOD = 600;

describe('the render cache of finished blocks', () => {
  it('keeps a block that is rendered again while others come and go', () => {
    const kept = renderMarkdown('A block the list shows again and again.');
    for (let index = 0; index < FLOOD; index++) {
      renderMarkdown(`Another block, number ${String(index)}.`);
      // The row is re-rendered now and then (scrolled back into view): it stays in the cache.
      if (index % 100 === 0) expect(renderMarkdown('A block the list shows again and again.')).toBe(kept);
    }
    expect(renderMarkdown('A block the list shows again and again.')).toBe(kept);
  });

  it('does not fill up with the unfinished tails of a streaming answer', () => {
    const finished = renderMarkdown('The first paragraph of the answer, finished.');
    let tail = 'The second paragraph';
    for (let index = 0; index < FLOOD; index++) {
      tail += ` grows ${String(index)}`;
      renderMarkdown(tail, [], { isFinished: false });
    }
    // The saved answer renders all its blocks again: the finished ones are still there.
    expect(renderMarkdown('The first paragraph of the answer, finished.')).toBe(finished);
  });

  it('renders an unfinished tail afresh each time', () => {
    const tail = 'A tail that **streams**';
    const first = renderMarkdown(tail, [], { isFinished: false });
    const second = renderMarkdown(tail, [], { isFinished: false });
    expect(second).not.toBe(first);
    expect(second).toEqual(first);
  });
});
