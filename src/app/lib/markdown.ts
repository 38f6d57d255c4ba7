import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import type { Env } from 'markdown-it';
import type { Citation } from '../../core/model';
import { installCitations, isSafeExternalUrl, type CitationEnv } from './markdown-citations';
import { installMath, type MathEnv } from './markdown-math';

export { loadMath } from './markdown-math';
export { enhanceCodeBlocks } from './enhance-code-blocks';

/**
 * Model output is untrusted. markdown-it renders it with raw HTML disabled (its link validator
 * already refuses `javascript:`, `vbscript:`, `file:` and `data:` links), images become plain
 * links (no remote image may load), and DOMPurify is the last step before the DOM.
 *
 * This module is a lazy chunk of its own (markdown-it, its entity tables and DOMPurify), loaded
 * through markdown-loader.svelte.ts; KaTeX is a further chunk that loads once math appears.
 */
const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });
installMath(markdown);
installCitations(markdown);

markdown.renderer.rules['image'] = (tokens, index) => {
  const token = tokens[index];
  const src = String(token?.attrGet('src') ?? '');
  const alt = markdown.utils.escapeHtml(token?.content || src);
  if (!isSafeExternalUrl(src)) return `<span class="image-link">${alt}</span>`;
  return `<a class="image-link" href="${markdown.utils.escapeHtml(src)}" target="_blank" rel="noopener noreferrer">🖼 ${alt}</a>`;
};

const renderLinkOpen = markdown.renderer.rules['link_open'];
markdown.renderer.rules['link_open'] = (tokens, index, options, env, self) => {
  const token = tokens[index];
  if (token && !String(token.attrGet('href') ?? '').startsWith('#')) {
    token.attrSet('target', '_blank');
    token.attrSet('rel', 'noopener noreferrer');
  }
  return renderLinkOpen ? renderLinkOpen(tokens, index, options, env, self) : self.renderToken(tokens, index, options);
};

markdown.renderer.rules['fence'] = (tokens, index) => {
  const token = tokens[index];
  const language = (token?.info ?? '').trim().split(/\s+/)[0] ?? '';
  const safeLanguage = /^[\w+#.-]{1,32}$/.test(language) ? language : '';
  const className = safeLanguage ? ` class="language-${safeLanguage}"` : '';
  const label = safeLanguage ? ` data-language="${safeLanguage}"` : '';
  return `<pre class="code-block"${label}><code${className}>${markdown.utils.escapeHtml(token?.content ?? '')}</code></pre>\n`;
};

type RenderEnv = CitationEnv & MathEnv & Env;

/** The markdown-it stage alone (not yet sanitized): what unit tests can check without a DOM. */
export function renderMarkdownHtml(source: string, citations: readonly Citation[] = []): string {
  return markdown.render(source, { citations } satisfies RenderEnv);
}

let isHookInstalled = false;

function installSanitizerHooks(): void {
  if (isHookInstalled) return;
  isHookInstalled = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node instanceof HTMLAnchorElement && node.hasAttribute('href') && !node.getAttribute('href')?.startsWith('#')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
}

export interface RenderedMarkdown {
  /** Sanitized HTML. */
  readonly html: string;
  /** Math is shown as its TeX source because KaTeX has not loaded: render again after `loadMath()`. */
  readonly hasPendingMath: boolean;
}

/**
 * Rendered HTML of finished blocks, by source text, least recently used first: a streaming
 * answer re-renders only its tail, and a row scrolled back into view finds its blocks here.
 */
const RENDER_CACHE_LIMIT = 500;
const renderCache = new Map<string, RenderedMarkdown>();

export interface RenderOptions {
  /** False for the tail of a streaming answer: it changes at every delta, so it is not cached. */
  isFinished?: boolean;
}

/** Markdown → safe HTML: markdown-it, then DOMPurify as the last step before the DOM. */
export function renderMarkdown(
  source: string,
  citations: readonly Citation[] = [],
  { isFinished = true }: RenderOptions = {},
): RenderedMarkdown {
  const key = `${citations.map((c) => `${String(c.number)}:${c.url ?? c.fileId ?? ''}`).join(',')}\u0000${source}`;
  const cached = renderCache.get(key);
  if (cached !== undefined) {
    renderCache.delete(key);
    renderCache.set(key, cached);
    return cached;
  }
  installSanitizerHooks();
  const env: RenderEnv = { citations };
  const html = DOMPurify.sanitize(markdown.render(source, env), {
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
    FORBID_TAGS: ['style', 'img', 'form', 'input', 'textarea', 'select', 'iframe'],
    FORBID_ATTR: ['srcset', 'action', 'formaction'],
  });
  const rendered: RenderedMarkdown = { html, hasPendingMath: env.hasPendingMath === true };
  // Output waiting for KaTeX is not kept: the render after it loads must not find it.
  if (rendered.hasPendingMath || !isFinished) return rendered;
  if (renderCache.size >= RENDER_CACHE_LIMIT) {
    const oldest = renderCache.keys().next().value;
    if (oldest !== undefined) renderCache.delete(oldest);
  }
  renderCache.set(key, rendered);
  return rendered;
}
