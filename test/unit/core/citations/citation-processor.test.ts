import { describe, expect, it } from 'vitest';
import { CitationProcessor, type CitationOutput } from '../../../../src/core/citations/citation-processor';
import type { Citation } from '../../../../src/core/model';

const DOCUMENTS: Record<number, Citation> = {
  1: { number: 1, title: 'Handbook' },
  2: { number: 2, title: 'Roadmap' },
  3: { number: 3, title: 'Minutes', url: 'https://example.com/minutes' },
};

function run(chunks: string[]): { text: string; citations: number[]; events: CitationOutput[] } {
  const processor = new CitationProcessor((n) => DOCUMENTS[n]);
  const events = [...chunks.flatMap((c) => processor.push(c)), ...processor.flush()];
  return {
    text: events.map((e) => (e.type === 'text' ? e.text : '')).join(''),
    citations: events.flatMap((e) => (e.type === 'citation' ? [e.citation.number] : [])),
    events,
  };
}

/** Every way of cutting `text` into two chunks, plus character by character. */
function splits(text: string): string[][] {
  const all: string[][] = [[text], [...text]];
  for (let i = 1; i < text.length; i++) all.push([text.slice(0, i), text.slice(i)]);
  return all;
}

const CASES: Array<{ name: string; input: string; text: string; citations: number[] }> = [
  { name: 'a single marker', input: 'Revenue grew [1].', text: 'Revenue grew [1].', citations: [1] },
  { name: 'a list in one bracket', input: 'See [1, 2].', text: 'See [1][2].', citations: [1, 2] },
  { name: 'double brackets', input: 'See [[2]].', text: 'See [2].', citations: [2] },
  { name: 'adjacent markers', input: 'Both [1][3] agree.', text: 'Both [1][3] agree.', citations: [1, 3] },
  { name: 'full-width brackets', input: 'As noted【2】and［3］.', text: 'As noted[2]and[3].', citations: [2, 3] },
  { name: 'full-width comma', input: 'See [1，2].', text: 'See [1][2].', citations: [1, 2] },
  { name: 'a number with no document', input: 'Unknown [9] here.', text: 'Unknown  here.', citations: [] },
  { name: 'repeated citations', input: 'A [1]. B [1].', text: 'A [1]. B [1].', citations: [1] },
  { name: 'a fenced code block', input: 'Code:\n```js\nconst a = x[1];\n```\nDone [2].', text: 'Code:\n```js\nconst a = x[1];\n```\nDone [2].', citations: [2] },
  { name: 'inline code', input: 'Use `arr[1]` then [1].', text: 'Use `arr[1]` then [1].', citations: [1] },
  { name: 'a Markdown link', input: 'A [link](https://x.y) [3].', text: 'A [link](https://x.y) [3].', citations: [3] },
  { name: 'an unfinished marker at the end', input: 'Trailing [1', text: 'Trailing [1', citations: [] },
];

describe('CitationProcessor', () => {
  for (const testCase of CASES) {
    it(`handles ${testCase.name} however the stream is chunked`, () => {
      for (const chunks of splits(testCase.input)) {
        const result = run(chunks);
        expect(result.text, JSON.stringify(chunks)).toBe(testCase.text);
        expect(result.citations, JSON.stringify(chunks)).toEqual(testCase.citations);
      }
    });
  }

  it('emits a citation before the text that first cites it', () => {
    const { events } = run(['Growth was strong [1] overall.']);
    expect(events.map((e) => e.type)).toEqual(['text', 'citation', 'text']);
    expect(events[0]).toEqual({ type: 'text', text: 'Growth was strong ' });
    expect(events[2]).toEqual({ type: 'text', text: '[1] overall.' });
  });

  it('holds back a partial marker until it is complete', () => {
    const processor = new CitationProcessor((n) => DOCUMENTS[n]);
    expect(processor.push('Fact [')).toEqual([{ type: 'text', text: 'Fact ' }]);
    expect(processor.push('2')).toEqual([]);
    expect(processor.push('] end')).toEqual([
      { type: 'citation', citation: DOCUMENTS[2] },
      { type: 'text', text: '[2] end' },
    ]);
  });

  it('does not hold back ordinary brackets', () => {
    const processor = new CitationProcessor((n) => DOCUMENTS[n]);
    expect(processor.push('[note] and [a')).toEqual([{ type: 'text', text: '[note] and [a' }]);
  });
});
