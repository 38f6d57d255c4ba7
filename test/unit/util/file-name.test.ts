import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { showFileName } from '../../../src/util/file-name';

const BIDI_CONTROLS = [
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200e',
  '\u200f',
  '\u061c',
];

describe('showFileName', () => {
  it('shows a right-to-left override as a visible escape, so the extension cannot be faked', () => {
    expect(showFileName('invoice\u202Efdp.exe')).toBe('invoice[U+202E]fdp.exe');
    expect(showFileName('a\u2066b\u2069c\u200f')).toBe('a[U+2066]b[U+2069]c[U+200F]');
  });

  it('leaves ordinary names, right-to-left letters included, as they are', () => {
    expect(showFileName('Rapport annuel 2024.pdf')).toBe('Rapport annuel 2024.pdf');
    expect(showFileName('تقرير.txt')).toBe('تقرير.txt');
  });

  it('never lets a bidirectional control through, and keeps every other character in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom(...BIDI_CONTROLS)), {
          maxLength: 12,
        }),
        (parts) => {
          const name = parts.join('');
          const shown = showFileName(name);
          for (const control of BIDI_CONTROLS) expect(shown).not.toContain(control);
          expect(shown.replace(/\[U\+[0-9A-F]{4}\]/g, '')).toBe(
            [...name].filter((char) => !BIDI_CONTROLS.includes(char)).join(''),
          );
        },
      ),
    );
  });
});
