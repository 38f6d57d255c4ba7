import type { MarkdownIt, StateInline } from 'markdown-it';
import type { Citation } from '../../core/model';

/**
 * `[n]` in an answer becomes a chip for the message's citation n: an external link for a web
 * source, a button (handled by the Markdown component) for a project file. A number the message
 * has no citation for stays plain text.
 */

const OPEN_BRACKET = 0x5b;
const CITATION_PATTERN = /^\[(\d{1,3})\](?!\()/;

export interface CitationEnv {
  citations?: readonly Citation[];
}

function parseCitation(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== OPEN_BRACKET) return false;
  const match = CITATION_PATTERN.exec(state.src.slice(state.pos, state.posMax));
  if (!match?.[1]) return false;
  const number = Number(match[1]);
  const env = state.env as CitationEnv;
  if (!env.citations?.some((citation) => citation.number === number)) return false;
  if (!silent) {
    const token = state.push('citation', '', 0);
    token.meta = { number };
  }
  state.pos += match[0].length;
  return true;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function isSafeExternalUrl(url: string): boolean {
  return /^https?:\/\//i.test(url.trim());
}

function renderCitation(citation: Citation): string {
  const label = escapeAttribute(`Source ${citation.number}: ${citation.title}`);
  const number = String(citation.number);
  if (citation.url && isSafeExternalUrl(citation.url)) {
    return `<a class="citation" href="${escapeAttribute(citation.url)}" target="_blank" rel="noopener noreferrer" title="${label}" aria-label="${label}">${number}</a>`;
  }
  return `<button type="button" class="citation" data-citation="${number}" title="${label}" aria-label="${label}">${number}</button>`;
}

export function installCitations(md: MarkdownIt): void {
  // Before `link`, which would otherwise try (and fail) to read `[1]` as a reference link.
  md.inline.ruler.before('link', 'citation', parseCitation);
  md.renderer.rules['citation'] = (tokens, index, _options, env) => {
    const number = (tokens[index]?.meta as { number: number } | undefined)?.number;
    const citation = (env as CitationEnv | undefined)?.citations?.find((c) => c.number === number);
    return citation ? renderCitation(citation) : `[${String(number)}]`;
  };
}
