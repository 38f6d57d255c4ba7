/** The file viewer's text helpers: the cited range to highlight and a PDF's pages. */

/** The cited character range, clamped to the text. */
export interface TextHighlight {
  before: string;
  marked: string;
  after: string;
}

export function splitHighlight(text: string, range: { charStart: number; charEnd: number } | null): TextHighlight {
  if (range === null) return { before: text, marked: '', after: '' };
  const start = Math.max(0, Math.min(range.charStart, text.length));
  const end = Math.max(start, Math.min(range.charEnd, text.length));
  return { before: text.slice(0, start), marked: text.slice(start, end), after: text.slice(end) };
}

/** A PDF page's slice of the extracted text, from the page map the ingest worker kept. */
export interface PageSlice {
  page: number;
  start: number;
  end: number;
}

export function slicePages(textLength: number, pageMap: readonly { page: number; offset: number }[]): PageSlice[] {
  const sorted = [...pageMap].sort((a, b) => a.offset - b.offset);
  return sorted.map((span, index) => ({
    page: span.page,
    start: span.offset,
    end: sorted[index + 1]?.offset ?? textLength,
  }));
}

/** The page holding a character offset (the cited passage's start), or the first page. */
export function findPageOf(pages: readonly PageSlice[], offset: number): number | null {
  const hit = pages.find((slice) => offset >= slice.start && offset < slice.end) ?? pages[0];
  return hit?.page ?? null;
}
