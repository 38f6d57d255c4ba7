import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chunkText,
  chunkTextInSteps,
  MAX_CHUNK_TOKENS,
  TARGET_CHUNK_TOKENS,
  type DocumentChunk,
} from '../../../../src/core/rag';
import { countStoredTokens } from '../../../builders/tokens';
import { chunkTextBefore } from './chunk-text-before';

const sentence = (i: number) =>
  `Sentence number ${i} talks about the weather in a small mountain village. `;
const paragraph = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => sentence(from + i)).join('');

describe('chunkText', () => {
  it('keeps every chunk within the token limit and counts its tokens', () => {
    const text = Array.from({ length: 40 }, (_, i) => paragraph(i * 5, 5)).join('\n\n');
    const chunks = chunkText({ text, kind: 'plain' }, countStoredTokens);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      expect(chunk.tokenCount).toBe(countStoredTokens(chunk.text));
      expect(chunk.tokenCount).toBeLessThanOrEqual(MAX_CHUNK_TOKENS);
      expect(chunk.tokenCount).toBeGreaterThan(TARGET_CHUNK_TOKENS / 2);
    }
  });

  it('keeps the exact character range of the file, in order, with ordinals', () => {
    const text = Array.from({ length: 30 }, (_, i) => paragraph(i * 4, 4)).join('\n\n');
    const chunks = chunkText({ text, kind: 'plain' }, countStoredTokens);
    chunks.forEach((chunk, i) => {
      expect(chunk.ordinal).toBe(i);
      expect(text.slice(chunk.charStart, chunk.charEnd)).toBe(chunk.text);
    });
    expect(chunks[0]?.charStart).toBe(0);
    expect(chunks.at(-1)?.charEnd).toBe(text.length);
  });

  it('overlaps consecutive chunks of one section by about fifteen percent', () => {
    const text = Array.from({ length: 30 }, (_, i) => paragraph(i * 4, 4)).join('\n\n');
    const [first, second] = chunkText({ text, kind: 'plain' }, countStoredTokens);
    if (first === undefined || second === undefined) throw new Error('expected two chunks');
    expect(second.charStart).toBeLessThan(first.charEnd);
    const overlap = countStoredTokens(text.slice(second.charStart, first.charEnd));
    expect(overlap).toBeGreaterThan(TARGET_CHUNK_TOKENS * 0.05);
    expect(overlap).toBeLessThanOrEqual(TARGET_CHUNK_TOKENS * 0.15);
  });

  it('starts a new chunk at a Markdown heading and records the heading path', () => {
    const text = [
      '# Guide',
      '',
      paragraph(0, 4),
      '',
      '## Install',
      '',
      paragraph(10, 4),
      '',
      '### On Linux',
      '',
      paragraph(20, 4),
      '',
      '## Use',
      '',
      paragraph(30, 4),
    ].join('\n');
    const chunks = chunkText({ text, kind: 'markdown' }, countStoredTokens);
    expect(chunks.map((chunk) => chunk.headingPath)).toEqual([
      ['Guide'],
      ['Guide', 'Install'],
      ['Guide', 'Install', 'On Linux'],
      ['Guide', 'Use'],
    ]);
    expect(chunks[1]?.text.startsWith('## Install')).toBe(true);
  });

  it('never cuts inside a fenced code block that fits, and ignores headings inside it', () => {
    const code = [
      '```python',
      '# not a heading',
      ...Array.from({ length: 30 }, (_, i) => `value_${i} = compute(${i}) + offset`),
      '```',
    ].join('\n');
    const text = [paragraph(0, 22), '', code, '', paragraph(50, 3)].join('\n');
    const chunks = chunkText({ text, kind: 'markdown' }, countStoredTokens);
    expect(chunks.some((chunk) => chunk.text.includes(code))).toBe(true);
    expect(chunks.every((chunk) => chunk.headingPath.length === 0)).toBe(true);
  });

  it('never lets a chunk cross a PDF page and records the page', () => {
    const pages = [paragraph(0, 3), paragraph(10, 3), paragraph(20, 3)];
    const text = pages.join('\n\n');
    const pageMap = [
      { page: 1, offset: 0 },
      { page: 2, offset: pages[0]!.length + 2 },
      { page: 3, offset: pages[0]!.length + pages[1]!.length + 4 },
    ];
    const chunks = chunkText({ text, kind: 'plain', pageMap }, countStoredTokens);
    expect(chunks.map((chunk) => chunk.page)).toEqual([1, 2, 3]);
    expect(chunks[1]?.text.trim()).toBe(pages[1]?.trim());
  });

  it('cuts a single paragraph that is longer than the limit', () => {
    const text = paragraph(0, 60);
    const chunks = chunkText({ text, kind: 'plain' }, countStoredTokens);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(chunk.tokenCount).toBeLessThanOrEqual(MAX_CHUNK_TOKENS);
  });

  it('covers every non-blank character of any text within the limit', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z #`\n.]{0,80}$/), { maxLength: 40 }),
        (lines) => {
          const text = lines.join('\n');
          const chunks = chunkText({ text, kind: 'markdown' }, countStoredTokens, {
            targetTokens: 30,
            maxTokens: 40,
          });
          const covered = new Array<boolean>(text.length).fill(false);
          for (const chunk of chunks) {
            expect(chunk.tokenCount).toBeLessThanOrEqual(40);
            for (let i = chunk.charStart; i < chunk.charEnd; i++) covered[i] = true;
          }
          for (let i = 0; i < text.length; i++)
            if (!/\s/.test(text[i] ?? '')) expect(covered[i]).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('chunkText with short sections', () => {
  it('keeps a heading whose section is still short together with the next one', () => {
    const text = ['# Notes', '', 'Short intro.', '', '## Details', '', paragraph(0, 2)].join('\n');
    const chunks = chunkText({ text, kind: 'markdown' }, countStoredTokens);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.headingPath).toEqual(['Notes']);
  });
});

/** Chunks in order, each starting at or before the previous one's end, together the whole text. */
function expectToCover(chunks: readonly DocumentChunk[], text: string) {
  expect(chunks[0]?.charStart).toBe(0);
  expect(chunks.at(-1)?.charEnd).toBe(text.length);
  for (let i = 1; i < chunks.length; i++)
    expect(chunks[i]!.charStart).toBeLessThanOrEqual(chunks[i - 1]!.charEnd);
}

describe('chunkText on long text', () => {
  const FIXTURES = join(import.meta.dirname, '../../../fixtures/documents');
  const documents = [
    ...readdirSync(join(FIXTURES, 'corpus'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => ({
        text: readFileSync(join(FIXTURES, 'corpus', name), 'utf8'),
        kind: 'markdown' as const,
      })),
    ...['inventory.csv', 'retry.ts', 'settings.json', 'article.html'].map((name) => ({
      text: readFileSync(join(FIXTURES, name), 'utf8'),
      kind: name.endsWith('.ts') ? ('code' as const) : ('plain' as const),
    })),
  ];
  const limits = [{}, { targetTokens: 30, maxTokens: 40 }, { targetTokens: 12, maxTokens: 16 }];

  it('cuts the fixture documents exactly as before, at every chunk size', () => {
    for (const document of documents)
      for (const options of limits)
        expect(chunkText(document, countStoredTokens, options)).toEqual(
          chunkTextBefore(document, countStoredTokens, options),
        );
  });

  it('cuts ordinary prose with over-long paragraphs exactly as before', () => {
    const text = Array.from({ length: 12 }, (_, i) =>
      i % 3 === 0 ? paragraph(i * 100, 40 + i) : paragraph(i * 100, 3 + i),
    ).join('\n\n');
    expect(chunkText({ text, kind: 'plain' }, countStoredTokens)).toEqual(
      chunkTextBefore({ text, kind: 'plain' }, countStoredTokens),
    );
  });

  it('cuts any text of words, lines and sentences exactly as before', () => {
    const word = fc.constantFrom(
      'tea',
      'kettle',
      'Lyon',
      '2024-01-05',
      '14.5',
      'a',
      'the',
      '—',
      'naïve',
    );
    const separator = fc.constantFrom(' ', ' ', ' ', '. ', ', ', '\n', '\n\n', '; ', '\t');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(word, separator), { maxLength: 400 }),
        fc.constantFrom(...limits),
        (parts, options) => {
          const text = parts.map(([w, s]) => w + s).join('');
          expect(chunkText({ text, kind: 'plain' }, countStoredTokens, options)).toEqual(
            chunkTextBefore({ text, kind: 'plain' }, countStoredTokens, options),
          );
        },
      ),
      { numRuns: 80 },
    );
  });

  it('cuts a CSV without blank lines at line ends, every chunk within the limit', () => {
    const rows = Array.from(
      { length: 3000 },
      (_, i) => `${i},widget ${i},${(i * 7.31).toFixed(2)},Lyon`,
    );
    const text = rows.join('\n');
    const chunks = chunkText({ text, kind: 'plain' }, countStoredTokens);
    expect(chunks.length).toBeGreaterThan(20);
    for (const chunk of chunks) {
      expect(chunk.tokenCount).toBe(countStoredTokens(chunk.text));
      expect(chunk.tokenCount).toBeLessThanOrEqual(MAX_CHUNK_TOKENS);
      expect(text.slice(chunk.charStart, chunk.charEnd)).toBe(chunk.text);
      expect(chunk.text.endsWith('\n') || chunk.charEnd === text.length).toBe(true);
    }
    expectToCover(chunks, text);
  });

  it('cuts a long line without any whitespace into pieces within the limit', () => {
    const text = 'x=1;y=2;'.repeat(40_000);
    const chunks = chunkText({ text, kind: 'plain' }, countStoredTokens);
    for (const chunk of chunks) {
      expect(chunk.tokenCount).toBe(countStoredTokens(chunk.text));
      expect(chunk.tokenCount).toBeLessThanOrEqual(MAX_CHUNK_TOKENS);
      // Full chunks: a cut never leaves a chunk much shorter than the limit.
      if (chunk.charEnd < text.length)
        expect(chunk.tokenCount).toBeGreaterThan(MAX_CHUNK_TOKENS * 0.9);
    }
    expectToCover(chunks, text);
  });

  it('counts about as many characters as the text holds, not the square of it', () => {
    // Counting work is what the chunker spends its time on; it must grow with the text.
    const measure = (rows: number) => {
      const text = Array.from({ length: rows }, (_, i) => `${i},widget ${i},Lyon`).join('\n');
      let counted = 0;
      chunkText({ text, kind: 'plain' }, (piece) => {
        counted += piece.length;
        return countStoredTokens(piece);
      });
      return counted / text.length;
    };
    const small = measure(2_000);
    const large = measure(20_000);
    expect(large).toBeLessThan(small * 1.3);
    expect(large).toBeLessThan(6);
  });
});

describe('chunkTextInSteps', () => {
  it('pauses with a growing share of the work done and ends with the same chunks as chunkText', () => {
    const text = Array.from({ length: 4000 }, (_, i) => `${i},widget ${i},Lyon`).join('\n');
    const steps = chunkTextInSteps({ text, kind: 'plain' }, countStoredTokens);
    const fractions: number[] = [];
    for (;;) {
      const step = steps.next();
      if (step.done) {
        expect(step.value).toEqual(chunkText({ text, kind: 'plain' }, countStoredTokens));
        break;
      }
      fractions.push(step.value);
    }
    expect(fractions.length).toBeGreaterThan(10);
    expect([...fractions].sort((a, b) => a - b)).toEqual(fractions);
    expect(fractions.every((fraction) => fraction >= 0 && fraction <= 1)).toBe(true);
  });
});
