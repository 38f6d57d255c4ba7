import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import type { ReadableText, ReadableTextExtractor } from '../../core/ports';

/** Below this many characters Readability's article is probably a fragment; use the whole body. */
const MIN_ARTICLE_CHARACTERS = 200;
/** Elements that never hold the page's text. */
const NOISE_SELECTOR =
  'script, style, noscript, template, svg, canvas, iframe, nav, footer, header, aside, form, button';
const BLOCK_TAGS = new Set([
  'ADDRESS',
  'ARTICLE',
  'BLOCKQUOTE',
  'DD',
  'DIV',
  'DL',
  'DT',
  'FIGCAPTION',
  'FIGURE',
  'HR',
  'MAIN',
  'OL',
  'P',
  'SECTION',
  'TABLE',
  'TBODY',
  'THEAD',
  'TR',
  'UL',
  'PRE',
]);

/** The little of a DOM node the text walk reads. */
interface NodeLike {
  nodeType: number;
  textContent: string | null;
  tagName?: string;
  childNodes: ArrayLike<NodeLike>;
}

/** The little of linkedom's document used here (its types lean on the DOM lib a worker lacks). */
interface DocumentLike {
  title: string | null;
  body: NodeLike | null;
  documentElement: NodeLike | null;
  querySelectorAll(selector: string): Iterable<{ remove(): void }>;
}

type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];

const parseDocument = (html: string): DocumentLike =>
  (parseHTML as (html: string) => { document: DocumentLike })(html).document;

/**
 * Readable text of an HTML page: Mozilla Readability (Firefox's reader view) over linkedom,
 * a DOM that works inside a worker, then the article's HTML as plain text that keeps headings,
 * paragraphs and list items apart. Pages Readability cannot make sense of fall back to the body
 * text without scripts, navigation and forms.
 */
export function createReadableTextExtractor(): ReadableTextExtractor {
  return { extract: extractReadableText };
}

export function extractReadableText(html: string, url: string): ReadableText {
  const document = parseDocument(html);
  const pageTitle = (document.title ?? '').trim();
  let article: ReturnType<Readability['parse']> = null;
  try {
    // linkedom's document is close enough to the DOM for Readability; a page it chokes on
    // falls back to the body text below. The cast is needed where the DOM lib is loaded (tests)
    // and looks unnecessary under the worker's lib, where Readability's `Document` is unresolved.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed under the DOM lib, see above
    article = new Readability(document as unknown as ReadabilityDocument, {
      charThreshold: MIN_ARTICLE_CHARACTERS,
    }).parse();
  } catch {
    article = null;
  }
  if (article?.content && (article.textContent ?? '').trim().length >= MIN_ARTICLE_CHARACTERS) {
    const articleDocument = parseDocument(
      `<!doctype html><html><body>${article.content}</body></html>`,
    );
    const text = articleDocument.body ? toPlainText(articleDocument.body) : '';
    return { title: article.title?.trim() || pageTitle, text };
  }
  const page = extractPageText(html);
  return { title: page.title || url, text: page.text };
}

/**
 * The whole page's text without scripts, navigation and forms, skipping Readability: for short
 * pages that are not articles (a proxy's error page), where Readability only costs time.
 */
export function extractPageText(html: string): ReadableText {
  const document = parseDocument(html);
  const title = (document.title ?? '').trim();
  for (const noise of document.querySelectorAll(NOISE_SELECTOR)) noise.remove();
  const body = document.body ?? document.documentElement;
  return { title, text: body ? toPlainText(body) : '' };
}

/** Page text for error bodies; see `extractPageText`. */
export function createPageTextExtractor(): ReadableTextExtractor {
  return { extract: (html) => extractPageText(html) };
}

function toPlainText(root: NodeLike): string {
  const parts: string[] = [];
  walk(root, parts);
  return parts
    .join('')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n[ \t]+/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function walk(node: NodeLike, parts: string[]): void {
  if (node.nodeType === 3) {
    parts.push((node.textContent ?? '').replace(/\s+/g, ' '));
    return;
  }
  if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
  const tag = (node.tagName ?? '').toUpperCase();
  if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'NOSCRIPT' || tag === 'TEMPLATE') return;
  if (tag === 'BR') {
    parts.push('\n');
    return;
  }
  const heading = /^H([1-6])$/.exec(tag);
  if (heading) parts.push(`\n\n${'#'.repeat(Number(heading[1]))} `);
  else if (tag === 'LI') parts.push('\n- ');
  else if (tag === 'TD' || tag === 'TH') parts.push(' | ');
  else if (BLOCK_TAGS.has(tag)) parts.push('\n\n');
  for (const child of Array.from(node.childNodes)) walk(child, parts);
  if (heading || BLOCK_TAGS.has(tag)) parts.push('\n\n');
}
