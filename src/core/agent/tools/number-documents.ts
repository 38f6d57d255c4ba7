import type { AssistantStep } from '../../model';
import type { ToolDocument } from './tool';

export type NumberedToolDocument = ToolDocument & { number: number };

/**
 * The key under which a URL keeps its citation number: the fragment is not part of the page,
 * and "https://a.b/x/" and "https://a.b/x" are the same page for a reader.
 */
export function toUrlKey(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href.replace(/\/+$/, '');
  } catch {
    return url;
  }
}

/** URL → citation number for every document with a URL already given in this turn. */
export function collectCitedUrls(steps: readonly AssistantStep[]): Map<string, number> {
  const cited = new Map<string, number>();
  for (const step of steps) {
    for (const call of step.toolCalls) {
      for (const doc of call.result?.documents ?? []) {
        if (doc.url && !cited.has(toUrlKey(doc.url))) cited.set(toUrlKey(doc.url), doc.number);
      }
    }
  }
  return cited;
}

/**
 * Numbers a tool's documents from `firstNumber` (one number per document, in call order), except that a URL already
 * cited in the turn keeps its number, so a page found by web_search and then opened with
 * open_url is one source [n], not two. A URL repeated within the same result is kept once.
 * `citedUrls` is updated with the new numbers.
 */
export function numberDocuments(
  documents: readonly ToolDocument[],
  firstNumber: number,
  citedUrls: Map<string, number>,
): { numbered: NumberedToolDocument[]; nextNumber: number } {
  let nextNumber = firstNumber;
  const numbered: NumberedToolDocument[] = [];
  const seenHere = new Set<string>();
  for (const doc of documents) {
    const key = doc.url ? toUrlKey(doc.url) : undefined;
    if (key !== undefined && seenHere.has(key)) continue;
    if (key !== undefined) seenHere.add(key);
    const known = key !== undefined ? citedUrls.get(key) : undefined;
    if (known !== undefined) {
      numbered.push({ ...doc, number: known });
      continue;
    }
    numbered.push({ ...doc, number: nextNumber });
    if (key !== undefined) citedUrls.set(key, nextNumber);
    nextNumber++;
  }
  return { numbered, nextNumber };
}
