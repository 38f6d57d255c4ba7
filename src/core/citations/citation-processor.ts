import type { Citation } from '../model';

/** What the processor hands on: text for the answer, and a citation the first time it is cited. */
export type CitationOutput = { type: 'text'; text: string } | { type: 'citation'; citation: Citation };

/** Looks up the document a citation number points to in this turn (project files, search results). */
export type CitationLookup = (documentNumber: number) => Citation | undefined;

const OPENERS = new Set(['[', '【', '［']);
const NUMBERS = String.raw`\s*(\d+(?:\s*[,，]\s*\d+)*)\s*`;
const PARTIAL_NUMBERS = String.raw`\s*(?:\d+(?:\s*[,，]\s*\d*)*)?\s*`;
/** Each form with its own closing bracket: `[[1]]`, `[1]` / `[1, 2]`, `【1】`, `［1］`. */
const BRACKETS: ReadonlyArray<readonly [string, string]> = [
  [String.raw`\[\[`, String.raw`\]\]`],
  [String.raw`\[`, String.raw`\]`],
  ['【', '】'],
  ['［', '］'],
];
const MARKERS = BRACKETS.map(([open, close]) => new RegExp(`^${open}${NUMBERS}${close}`));
/** What may still grow into a marker when more text arrives. */
const PARTIAL_MARKERS = BRACKETS.map(([open, close]) => new RegExp(`^${open}${PARTIAL_NUMBERS}(?:${close.slice(0, 2)})?$`));
/** A partial marker longer than this is plain text; nothing is held back forever. */
const MAX_MARKER_CHARS = 48;

/**
 * Streaming citation processor: documents are cited by number. Recognises the
 * citation forms models write, normalises them to `[n]`, drops numbers that map to no document,
 * and emits each document's citation once per message, before the text that first cites it.
 * A marker split across chunks is held back until complete; code (fenced or inline) is left alone.
 */
export class CitationProcessor {
  private pending = '';
  private isInFence = false;
  private isInInlineCode = false;
  private readonly cited = new Set<number>();

  constructor(private readonly lookup: CitationLookup) {}

  /** The numbers cited so far, in first-cited order. */
  get citedNumbers(): number[] {
    return [...this.cited];
  }

  push(delta: string): CitationOutput[] {
    this.pending += delta;
    return this.drain(false);
  }

  /** The stream ended: whatever is held back is plain text. */
  flush(): CitationOutput[] {
    return this.drain(true);
  }

  private drain(isFinal: boolean): CitationOutput[] {
    const out: CitationOutput[] = [];
    let text = '';
    let i = 0;
    const source = this.pending;
    while (i < source.length) {
      if (this.isInFence) {
        const close = source.indexOf('```', i);
        if (close === -1) {
          // Keep up to two trailing backticks: they may start the closing fence.
          const keep = isFinal ? 0 : trailingBackticks(source, 2);
          text += source.slice(i, source.length - keep);
          i = source.length - keep;
          break;
        }
        text += source.slice(i, close + 3);
        i = close + 3;
        this.isInFence = false;
        continue;
      }
      const ch = source[i] as string;
      if (ch === '`') {
        if (source.startsWith('```', i)) {
          text += '```';
          i += 3;
          this.isInFence = true;
          this.isInInlineCode = false;
          continue;
        }
        if (!isFinal && source.length - i < 3 && '```'.startsWith(source.slice(i))) break;
        this.isInInlineCode = !this.isInInlineCode;
        text += ch;
        i++;
        continue;
      }
      if (this.isInInlineCode || !OPENERS.has(ch)) {
        text += ch;
        i++;
        continue;
      }
      const rest = source.slice(i);
      const match = matchMarker(rest);
      if (match) {
        const numbers = (match[1] ?? '').split(/[,，]/).map((n) => Number(n.trim()));
        for (const number of numbers) {
          const citation = this.lookup(number);
          if (!citation) continue;
          if (!this.cited.has(number)) {
            this.cited.add(number);
            if (text) out.push({ type: 'text', text });
            text = '';
            out.push({ type: 'citation', citation });
          }
          text += `[${number}]`;
        }
        i += match[0].length;
        continue;
      }
      if (!isFinal && rest.length <= MAX_MARKER_CHARS && PARTIAL_MARKERS.some((re) => re.test(rest))) break;
      text += ch;
      i++;
    }
    this.pending = source.slice(i);
    if (text) out.push({ type: 'text', text });
    return out;
  }
}

function matchMarker(text: string): RegExpExecArray | null {
  for (const marker of MARKERS) {
    const match = marker.exec(text);
    if (match) return match;
  }
  return null;
}

function trailingBackticks(text: string, max: number): number {
  let count = 0;
  while (count < max && text[text.length - 1 - count] === '`') count++;
  return count;
}
