import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import type { Citation } from '../../core/model';
import { installCitations, isSafeExternalUrl, type CitationEnv } from './markdown-citations';
import { installMath } from './markdown-math';

/**
 * Model output is untrusted. markdown-it renders it with raw HTML disabled (its link validator
 * already refuses `javascript:`, `vbscript:`, `file:` and `data:` links), images become plain
 * links (no remote image may load), and DOMPurify is the last step before the DOM.
 */
const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });
installMath(markdown);
installCitations(markdown);

markdown.renderer.rules['image'] = (tokens, index) => {
  const token = tokens[index];
  const src = token?.attrGet('src') ?? '';
  const alt = markdown.utils.escapeHtml(token?.content || src);
  if (!isSafeExternalUrl(src)) return `<span class="image-link">${alt}</span>`;
  return `<a class="image-link" href="${markdown.utils.escapeHtml(src)}" target="_blank" rel="noopener noreferrer">🖼 ${alt}</a>`;
};

const renderLinkOpen = markdown.renderer.rules['link_open'];
markdown.renderer.rules['link_open'] = (tokens, index, options, env, self) => {
  const token = tokens[index];
  if (token && !(token.attrGet('href') ?? '').startsWith('#')) {
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

/** The markdown-it stage alone (not yet sanitized): what unit tests can check without a DOM. */
export function renderMarkdownHtml(source: string, citations: readonly Citation[] = []): string {
  const env: CitationEnv = { citations };
  return markdown.render(source, env);
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

/** Rendered HTML of finished blocks, by source text: a streaming answer re-renders only its tail. */
const RENDER_CACHE_LIMIT = 500;
const renderCache = new Map<string, string>();

/** Markdown → safe HTML: markdown-it, then DOMPurify as the last step before the DOM. */
export function renderMarkdown(source: string, citations: readonly Citation[] = []): string {
  const key = `${citations.map((c) => `${String(c.number)}:${c.url ?? c.fileId ?? ''}`).join(',')}\u0000${source}`;
  const cached = renderCache.get(key);
  if (cached !== undefined) return cached;
  installSanitizerHooks();
  const html = DOMPurify.sanitize(renderMarkdownHtml(source, citations), {
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
    FORBID_TAGS: ['style', 'img', 'form', 'input', 'textarea', 'select', 'iframe'],
    FORBID_ATTR: ['srcset', 'action', 'formaction'],
  });
  if (renderCache.size >= RENDER_CACHE_LIMIT) {
    const oldest = renderCache.keys().next().value;
    if (oldest !== undefined) renderCache.delete(oldest);
  }
  renderCache.set(key, html);
  return html;
}
