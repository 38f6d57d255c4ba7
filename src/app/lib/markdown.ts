import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';

/**
 * Model output is untrusted: markdown-it renders it with raw HTML disabled, and DOMPurify is the
 * last step before the DOM. Links open in a new tab without an opener or referrer.
 */
const markdown = new MarkdownIt({ html: false, linkify: true, breaks: false });

let isHookInstalled = false;

function installHooks(): void {
  if (isHookInstalled) return;
  isHookInstalled = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node instanceof HTMLAnchorElement && node.hasAttribute('href')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
}

export function renderMarkdown(source: string): string {
  installHooks();
  const html = markdown.render(source);
  return DOMPurify.sanitize(html, {
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
    FORBID_TAGS: ['style', 'img'],
  });
}
