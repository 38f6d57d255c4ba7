import type { HLJSApi } from 'highlight.js';
import { artifactKindOf } from '../../state/chat/artifacts';

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

/** The row of buttons at a code block's top right, made once per block. */
function actionsOf(pre: HTMLPreElement): HTMLElement {
  const existing = pre.querySelector<HTMLElement>(':scope > .code-actions');
  if (existing) return existing;
  const actions = document.createElement('div');
  actions.className = 'code-actions';
  pre.prepend(actions);
  return actions;
}

function addCopyButton(pre: HTMLPreElement): void {
  if (pre.querySelector(':scope > .code-actions > .code-copy')) return;
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
  actionsOf(pre).append(button);
}

/**
 * HTML, SVG and Mermaid blocks also get a "Preview" button; the chat screen listens for its
 * clicks (one delegated listener) and opens the artifact panel on the block's code.
 */
function addPreviewButton(pre: HTMLPreElement): void {
  if (!artifactKindOf(pre.dataset['language']) || pre.querySelector(':scope > .code-actions > .code-preview')) return;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'code-preview';
  button.textContent = 'Preview';
  button.setAttribute('aria-label', 'Preview this code');
  actionsOf(pre).append(button);
}

/** Adds copy buttons now and colours the code once highlight.js has loaded. */
export function enhanceCodeBlocks(container: HTMLElement, shouldHighlight: boolean): void {
  const blocks = Array.from(container.querySelectorAll<HTMLPreElement>('pre.code-block'));
  if (blocks.length === 0) return;
  for (const pre of blocks) {
    addCopyButton(pre);
    addPreviewButton(pre);
  }
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
