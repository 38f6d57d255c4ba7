import type { HLJSApi } from 'highlight.js';

/**
 * Code blocks get a copy button and syntax colours after they reach the DOM. highlight.js is
 * loaded on the first code block only (a dynamic import, its own chunk), so chats without code
 * never download it.
 */

let highlighter: Promise<HLJSApi> | null = null;

function loadHighlighter(): Promise<HLJSApi> {
  highlighter ??= import('highlight.js/lib/common').then((module) => {
    const hljs = module.default;
    // Our code elements hold escaped text only; nothing to warn about.
    hljs.configure({ ignoreUnescapedHTML: true });
    return hljs;
  });
  return highlighter;
}

/** How long "Copied" shows on a copy button before it reads "Copy" again. */
const COPIED_FEEDBACK_MS = 1500;

function addCopyButton(pre: HTMLPreElement): void {
  if (pre.querySelector(':scope > .code-copy')) return;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'code-copy';
  button.textContent = 'Copy';
  button.setAttribute('aria-label', 'Copy code');
  button.addEventListener('click', () => {
    const text = pre.querySelector('code')?.textContent ?? '';
    navigator.clipboard.writeText(text).then(
      () => {
        button.textContent = 'Copied';
        setTimeout(() => (button.textContent = 'Copy'), COPIED_FEEDBACK_MS);
      },
      (error: unknown) => console.error('Could not copy the code:', error),
    );
  });
  pre.prepend(button);
}

/** Adds copy buttons now and colours the code once highlight.js has loaded. */
export function enhanceCodeBlocks(container: HTMLElement, shouldHighlight: boolean): void {
  const blocks = Array.from(container.querySelectorAll<HTMLPreElement>('pre.code-block'));
  if (blocks.length === 0) return;
  for (const pre of blocks) addCopyButton(pre);
  if (!shouldHighlight) return;
  loadHighlighter().then(
    (hljs) => {
      for (const pre of blocks) {
        const code = pre.querySelector('code');
        if (!code || code.dataset['highlighted'] === 'yes' || !code.isConnected) continue;
        const language = pre.dataset['language'];
        if (language && !hljs.getLanguage(language)) code.classList.add('nohighlight');
        hljs.highlightElement(code);
      }
    },
    (error: unknown) => console.error('Could not load code highlighting:', error),
  );
}
