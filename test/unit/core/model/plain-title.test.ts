import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toPlainTitle } from '../../../../src/core/model';

describe('toPlainTitle', () => {
  it.each([
    ['# What is the **capital** of France?', 'What is the capital of France?'],
    ['**Paris** is the capital', 'Paris is the capital'],
    ['## Rust `Vec` vs __slices__', 'Rust Vec vs slices'],
    ['*Quick* notes on ~~old~~ new APIs', 'Quick notes on old new APIs'],
    ['> [Docs](https://example.com) for 2 * 3', 'Docs for 2 * 3'],
    ['- item one', 'item one'],
    ['snake_case_names stay', 'snake_case_names stay'],
    ['C# and F# tips', 'C# and F# tips'],
  ])('reduces %j to its words', (input, expected) => {
    expect(toPlainTitle(input)).toBe(expected);
  });

  it('leaves no emphasis, code or heading markers around any words', () => {
    const word = fc.stringMatching(/^[A-Za-z0-9]{1,8}$/);
    const marker = fc.constantFrom('**', '__', '`', '~~', '*', '_');
    const wrapped = fc.tuple(marker, word).map(([m, w]) => `${m}${w}${m}`);
    const piece = fc.oneof(word, wrapped);
    fc.assert(
      fc.property(fc.constantFrom('', '# ', '### ', '> '), fc.array(piece, { minLength: 1, maxLength: 6 }), (start, pieces) => {
        const title = toPlainTitle(start + pieces.join(' '));
        expect(title).not.toMatch(/\*\*|__|`|~~|^#|^>/);
        expect(title.split(' ')).toEqual(pieces.map((p) => p.replace(/[*_`~]/g, '')));
      }),
    );
  });
});
