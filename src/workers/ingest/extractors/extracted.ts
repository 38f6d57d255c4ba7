import type { PageSpan } from '../../../core/ports';

/** What an extractor found: text (with page starts for PDFs), or an image with its size. */
export type Extracted =
  | { kind: 'text'; text: string; pageMap?: PageSpan[] }
  | { kind: 'image'; width: number; height: number };
