import type { Citation } from '../../core/model';
import type * as Markdown from './markdown';

type MarkdownModule = typeof Markdown;

/**
 * Markdown on demand. markdown-it and DOMPurify (the markdown.ts chunk) and KaTeX (the
 * math-katex.ts chunk) are not in the startup script. A render before they arrive shows the
 * source as plain text (or the math as TeX source) and starts the load; the runes below make
 * every `$derived` that rendered that way render again once it lands.
 *
 * A failed load is logged and not retried on every render (a streaming answer renders many times
 * a second): the text stays readable, and a reload tries again.
 */

let markdownModule = $state.raw<MarkdownModule | null>(null);
let isMathLoaded = $state(false);
let markdownLoad: Promise<void> | null = null;
let mathLoad: Promise<void> | null = null;

/**
 * Loads the renderer once (never rejects: a failure is logged). main.ts calls it after first
 * paint, so a chat opened a moment later is formatted straight away.
 */
export function loadMarkdownRenderer(): Promise<void> {
  markdownLoad ??= import('./markdown').then(
    (module) => {
      markdownModule = module;
    },
    (error: unknown) => console.error('Could not load the Markdown renderer:', error),
  );
  return markdownLoad;
}

function requestMath(module: MarkdownModule): void {
  mathLoad ??= module.loadMath().then(
    () => {
      isMathLoaded = true;
    },
    (error: unknown) => console.error('Could not load math rendering (KaTeX):', error),
  );
}

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** The source as escaped text, kept readable until the renderer arrives. */
function renderPlainText(source: string): string {
  if (source === '') return '';
  return `<p class="markdown-pending">${source.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char)}</p>`;
}

/**
 * Markdown → safe HTML (see markdown.ts). Reactive: read inside `$derived`, it renders again
 * when the renderer or KaTeX it was waiting for has loaded.
 */
export function renderMarkdownOnDemand(
  source: string,
  citations: readonly Citation[] = [],
  options: Markdown.RenderOptions = {},
): string {
  const module = markdownModule;
  if (module === null) {
    void loadMarkdownRenderer();
    return renderPlainText(source);
  }
  const rendered = module.renderMarkdown(source, citations, options);
  // Read only when waiting, so answers without math do not depend on KaTeX at all.
  if (rendered.hasPendingMath && !isMathLoaded) requestMath(module);
  return rendered.html;
}

/**
 * Copy buttons and colours for the code blocks in `container`. They come with the renderer's
 * chunk: until it arrives there is only plain text, and no code block to enhance.
 */
export function enhanceCodeBlocksOnDemand(container: HTMLElement, shouldHighlight: boolean): void {
  markdownModule?.enhanceCodeBlocks(container, shouldHighlight);
}
