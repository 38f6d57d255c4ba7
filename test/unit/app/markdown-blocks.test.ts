import { describe, expect, it } from 'vitest';
import { splitMarkdownBlocks } from '../../../src/app/lib/markdown-blocks';

describe('splitMarkdownBlocks', () => {
  it('keeps text without a blank line as the unfinished tail', () => {
    expect(splitMarkdownBlocks('Hello, wor')).toEqual({ finished: [], tail: 'Hello, wor' });
  });

  it('finishes every block followed by a blank line', () => {
    expect(splitMarkdownBlocks('One.\n\nTwo.\n\nThr')).toEqual({ finished: ['One.', 'Two.'], tail: 'Thr' });
  });

  it('finishes a paragraph as soon as the blank line after it arrives', () => {
    expect(splitMarkdownBlocks('One.\n\n')).toEqual({ finished: ['One.'], tail: '' });
  });

  it('keeps blank lines inside an open code fence in the tail', () => {
    const source = 'Intro.\n\n```py\na = 1\n\nb = 2';
    expect(splitMarkdownBlocks(source)).toEqual({ finished: ['Intro.'], tail: '```py\na = 1\n\nb = 2' });
  });

  it('finishes a closed code fence with its blank lines in one block', () => {
    const source = '```\na\n\nb\n```\n\nAfter';
    expect(splitMarkdownBlocks(source)).toEqual({ finished: ['```\na\n\nb\n```'], tail: 'After' });
  });

  it('keeps a display-math block with a blank line together', () => {
    const source = '$$\na\n\nb\n$$\n\nnext';
    expect(splitMarkdownBlocks(source)).toEqual({ finished: ['$$\na\n\nb\n$$'], tail: 'next' });
  });

  it('joins back to the same text, whitespace between blocks aside', () => {
    const source = '# Title\n\nSome *text*.\n\n- a\n- b\n\n| x |\n|---|\n| 1 |';
    const { finished, tail } = splitMarkdownBlocks(source);
    expect([...finished, tail].join('\n\n')).toBe(source);
  });
});
