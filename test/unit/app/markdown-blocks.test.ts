import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderMarkdownHtml } from '../../../src/app/lib/markdown';
import { createBlockSplitter, splitMarkdownBlocks } from '../../../src/app/lib/markdown-blocks';

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
    const bracketed = '\\[\na\n\nb\n\\]\n\nnext';
    expect(splitMarkdownBlocks(bracketed)).toEqual({ finished: ['\\[\na\n\nb\n\\]'], tail: 'next' });
  });

  it('joins back to the same text, whitespace between blocks aside', () => {
    const source = '# Title\n\nSome *text*.\n\n- a\n- b\n\n| x |\n|---|\n| 1 |';
    const { finished, tail } = splitMarkdownBlocks(source);
    expect([...finished, tail].join('\n\n')).toBe(source);
  });
});

describe('splitMarkdownBlocks keeps together what markdown-it would join', () => {
  it('keeps a loose list (items apart by blank lines) in one block', () => {
    expect(splitMarkdownBlocks('- a\n\n- b\n\nAfter.\n\nEnd')).toEqual({ finished: ['- a\n\n- b', 'After.'], tail: 'End' });
  });

  it('keeps an indented paragraph inside its list item', () => {
    expect(splitMarkdownBlocks('1. a\n\n   more about a\n\nAfter.\n')).toEqual({
      finished: ['1. a\n\n   more about a'],
      tail: 'After.\n',
    });
  });

  it('leaves a list open until a whole line after it shows that the list ended', () => {
    expect(splitMarkdownBlocks('- a\n\n')).toEqual({ finished: [], tail: '- a\n\n' });
    // "2" may still become "2. b", an item of the same list.
    expect(splitMarkdownBlocks('1. a\n\n2')).toEqual({ finished: [], tail: '1. a\n\n2' });
  });

  it('keeps an indented code block with a blank line in one block', () => {
    expect(splitMarkdownBlocks('    a = 1\n\n    b = 2\n\nAfter.\n')).toEqual({
      finished: ['    a = 1\n\n    b = 2'],
      tail: 'After.\n',
    });
  });

  it('renders a text with a reference definition as one block, since any block may use it', () => {
    const source = 'See [the docs][d].\n\nMore.\n\n[d]: https://example.com/docs';
    expect(splitMarkdownBlocks(source)).toEqual({ finished: [], tail: source });
  });
});

/** Markdown blocks of the kinds models write, with the constructs that span blank lines. */
const word = fc.constantFrom('alpha', 'beta', '`code()`', '**bold**', '[link](https://example.com/x)', 'x_y', '$x$');
const phrase = fc.array(word, { minLength: 1, maxLength: 6 }).map((words) => words.join(' '));
const markdownBlock = fc.oneof(
  phrase,
  fc.array(phrase, { minLength: 2, maxLength: 3 }).map((lines) => lines.join('\n')),
  phrase.map((text) => `## ${text}`),
  fc.array(phrase, { minLength: 1, maxLength: 3 }).map((items) => items.map((item) => `- ${item}`).join('\n')),
  fc.array(phrase, { minLength: 2, maxLength: 3 }).map((items) => items.map((item, i) => `${i + 1}. ${item}`).join('\n\n')),
  fc.tuple(phrase, phrase).map(([item, more]) => `- ${item}\n\n  ${more}`),
  fc.tuple(phrase, phrase).map(([item, nested]) => `- ${item}\n  - ${nested}`),
  fc.tuple(phrase, phrase).map(([a, b]) => '```ts\n' + `${a}\n\n${b}` + '\n```'),
  fc.tuple(phrase, phrase).map(([item, code]) => `- ${item}\n\n  ~~~\n  ${code}\n\n  ~~~`),
  fc.tuple(phrase, phrase).map(([a, b]) => `    ${a}\n\n    ${b}`),
  fc.tuple(phrase, phrase).map(([a, b]) => `| ${a} | n |\n|---|---:|\n| ${b} | 1 |`),
  fc.tuple(phrase, phrase).map(([a, b]) => `> ${a}\n>\n> ${b}`),
  fc.tuple(phrase, phrase).map(([a, b]) => `$$\n${a}\n\n${b}\n$$`),
  fc.tuple(phrase, phrase).map(([a, b]) => `\\[\n${a}\n\n${b}\n\\]`),
  phrase.map((text) => `${text} [ref][r]\n\n[r]: https://example.com/ref`),
  fc.constant('---'),
);
const markdownText = fc
  .tuple(fc.array(markdownBlock, { minLength: 1, maxLength: 8 }), fc.constantFrom('\n\n', '\n\n\n'))
  .map(([blocks, separator]) => blocks.join(separator));

describe('block-by-block rendering', () => {
  it('renders the same HTML as rendering the whole text at once', () => {
    fc.assert(
      fc.property(markdownText, (source) => {
        const { finished, tail } = splitMarkdownBlocks(source);
        const blockwise = [...finished, tail].map((block) => renderMarkdownHtml(block)).join('');
        expect(blockwise).toBe(renderMarkdownHtml(source));
      }),
      { numRuns: 300 },
    );
  });
});

describe('createBlockSplitter', () => {
  it('splits a growing text as splitMarkdownBlocks splits each of its prefixes', () => {
    fc.assert(
      fc.property(markdownText, fc.array(fc.nat(), { maxLength: 12 }), (source, cuts) => {
        const split = createBlockSplitter();
        const ends = [...new Set(cuts.map((cut) => cut % (source.length + 1)))].sort((a, b) => a - b);
        for (const end of [...ends, source.length]) {
          expect(split(source.slice(0, end))).toEqual(splitMarkdownBlocks(source.slice(0, end)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the finished blocks it had when the text grows', () => {
    const split = createBlockSplitter();
    const before = split('One.\n\nTwo.\n\nTh');
    const after = split('One.\n\nTwo.\n\nThree.\n\nFo');
    expect(after.finished).toEqual(['One.', 'Two.', 'Three.']);
    expect(after.finished[0]).toBe(before.finished[0]);
    expect(after.tail).toBe('Fo');
  });

  it('starts over when the text changes other than at its end', () => {
    const split = createBlockSplitter();
    split('One.\n\nTwo.\n\nThree');
    expect(split('Uno.\n\nDos')).toEqual({ finished: ['Uno.'], tail: 'Dos' });
  });
});
