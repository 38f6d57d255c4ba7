import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { decodeText } from './text.extractor';
import type { Extracted } from './extracted';

/**
 * The part of linkedom's DOM used here. linkedom's own types lean on the DOM lib, which the
 * worker tsconfig does not load, so they are narrowed to this shape once.
 */
interface HtmlElement {
  tagName: string;
  textContent: string | null;
  parentElement: HtmlElement | null;
  innerHTML: string;
  closest(selector: string): HtmlElement | null;
  remove(): void;
}

interface HtmlDocument {
  body: HtmlElement | null;
  querySelector(selector: string): HtmlElement | null;
  querySelectorAll(selector: string): Iterable<HtmlElement>;
}

interface ReadableArticle {
  title?: string | null;
  content?: string | null;
}

/** Readability typed over the narrowed document (it only walks the DOM it is given). */
const ArticleReader = Readability as unknown as new (document: HtmlDocument) => {
  parse(): ReadableArticle | null;
};

function parseDocument(html: string): HtmlDocument {
  return (parseHTML(html) as unknown as { document: HtmlDocument }).document;
}

const BLOCK_SELECTOR = 'h1,h2,h3,h4,h5,h6,p,li,pre,blockquote,td,th,dt,dd,figcaption';

/**
 * Headings, paragraphs, list items and code of an HTML fragment as Markdown-like blocks, so
 * the chunker sees sections and paragraphs (also used for Word documents via mammoth's HTML).
 */
export function renderHtmlBlocks(html: string): string {
  const source = parseDocument(`<html><body>${html}</body></html>`);
  const blocks: string[] = [];
  for (const element of source.querySelectorAll(BLOCK_SELECTOR)) {
    if (element.parentElement?.closest(BLOCK_SELECTOR)) continue;
    const tag = element.tagName.toUpperCase();
    if (tag === 'PRE') {
      const code = (element.textContent ?? '').replace(/\n+$/, '');
      if (code.trim() !== '') blocks.push(`\`\`\`\n${code}\n\`\`\``);
      continue;
    }
    const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim();
    if (text === '') continue;
    const level = /^H([1-6])$/.exec(tag)?.[1];
    blocks.push(level === undefined ? text : `${'#'.repeat(Number(level))} ${text}`);
  }
  if (blocks.length === 0) {
    const text = (source.body?.textContent ?? '').replace(/[ \t]+/g, ' ').trim();
    if (text !== '') blocks.push(text);
  }
  return blocks.join('\n\n');
}

/**
 * The readable text of a page (Readability drops navigation, scripts and footers), as
 * Markdown-like blocks. Workers have no DOMParser, hence linkedom.
 */
export function extractHtml(bytes: Uint8Array): Extracted {
  const html = decodeText(bytes);
  const document = parseDocument(html);
  for (const element of document.querySelectorAll('script,style,noscript,template'))
    element.remove();
  // Readability mutates the document it reads; give it a copy of the page.
  const article = new ArticleReader(parseDocument(html)).parse();
  const body = article?.content ?? document.querySelector('body')?.innerHTML ?? '';
  const title =
    article?.title?.trim() ?? document.querySelector('title')?.textContent?.trim() ?? '';
  const text = renderHtmlBlocks(body);
  const hasTitleHeading = text.startsWith('# ');
  return { kind: 'text', text: title !== '' && !hasTitleHeading ? `# ${title}\n\n${text}` : text };
}
