/**
 * A shared chat as one self-contained web page: readable in any browser without Carrel, print
 * ready (the browser's "Save as PDF" makes the PDF), with no script and nothing fetched from
 * anywhere. Answers go through the same Markdown renderer and sanitizer as in the app. The chat's
 * data rides along in a JSON block, so Carrel imports the page back as a chat.
 */
import {
  answerText,
  describeUnfinishedAnswer,
  SHARED_CHAT_DATA_ID,
  serializeSharedChat,
  type ChatMessageSimple,
  type SharedChat,
} from '../../core/model';
import { isSafeExternalUrl } from './markdown-citations';
import { renderMarkdown } from './markdown';

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] ?? character);
}

const PAGE_STYLE = `
:root { color-scheme: light; }
body { font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2933; background: #fff; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
header { border-bottom: 1px solid #d5dbe1; margin-bottom: 1.5rem; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
.meta { color: #52606d; font-size: .875rem; margin: 0 0 1rem; }
article { margin: 0 0 1.5rem; break-inside: avoid-page; }
article h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .04em; color: #52606d; margin: 0 0 .35rem; }
.question { background: #f0f4f8; border-radius: 8px; padding: .75rem 1rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.answer { overflow-wrap: anywhere; }
.notice { color: #8a4b08; font-style: italic; }
pre { background: #f5f7fa; border: 1px solid #d5dbe1; border-radius: 6px; padding: .75rem; overflow-x: auto; white-space: pre-wrap; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .9em; }
table { border-collapse: collapse; } th, td { border: 1px solid #d5dbe1; padding: .3rem .5rem; }
blockquote { border-left: 3px solid #d5dbe1; margin-left: 0; padding-left: 1rem; color: #3e4c59; }
ul.files, ol.sources { font-size: .875rem; color: #3e4c59; }
@media print { body { margin: 0; max-width: none; } a { color: inherit; } }
`;

function renderMessage(message: ChatMessageSimple): string {
  if (message.role === 'user') {
    const files =
      message.attachments.length === 0
        ? ''
        : `<ul class="files">${message.attachments.map((file) => `<li>📎 ${escapeHtml(file.name)}</li>`).join('')}</ul>`;
    return `<article class="user"><h2>You</h2><div class="question">${escapeHtml(message.text)}</div>${files}</article>`;
  }
  const model = message.model === undefined ? '' : ` · ${escapeHtml(message.model.modelId)}`;
  const notice = describeUnfinishedAnswer(message.status);
  const sources =
    message.citations.length === 0
      ? ''
      : `<ol class="sources">${message.citations
          .map((citation) => {
            const title = escapeHtml(citation.title || citation.url || `Source ${citation.number}`);
            const link =
              citation.url !== undefined && isSafeExternalUrl(citation.url)
                ? `<a href="${escapeHtml(citation.url)}">${title}</a>`
                : title;
            return `<li value="${citation.number}">${link}</li>`;
          })
          .join('')}</ol>`;
  return [
    `<article class="assistant"><h2>Assistant${model}</h2>`,
    `<div class="answer">${renderMarkdown(answerText(message), message.citations).html}</div>`,
    notice === null ? '' : `<p class="notice">${escapeHtml(notice)}</p>`,
    sources,
    '</article>',
  ].join('');
}

/** The page's full HTML. `timeZone` formats the export time as the person reads it. */
export function renderSharedChatPage(shared: SharedChat, timeZone?: string): string {
  const title = shared.title.trim() === '' ? 'Untitled chat' : shared.title.trim();
  const exported = new Date(shared.exportedAt).toLocaleString('en-GB', {
    dateStyle: 'long',
    timeStyle: 'short',
    ...(timeZone === undefined ? {} : { timeZone }),
  });
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // The page runs nothing and loads nothing, whatever an answer contains.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${PAGE_STYLE}</style>`,
    '</head><body>',
    `<header><h1>${escapeHtml(title)}</h1><p class="meta">Exported from Carrel on ${escapeHtml(exported)} · ${shared.messages.length} messages</p></header>`,
    '<main>',
    ...shared.messages.map(renderMessage),
    '</main>',
    `<script type="application/json" id="${SHARED_CHAT_DATA_ID}">${serializeSharedChat(shared)}</script>`,
    '</body></html>',
    '',
  ].join('\n');
}
