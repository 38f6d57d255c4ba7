import { z } from 'zod';
import type {
  ConfirmationPort,
  HttpFetcher,
  HttpResponse,
  ReadableTextExtractor,
} from '../../ports';
import { toUrlKey } from './number-documents';
import type { Tool, ToolDocument, ToolOutput } from './tool';
import {
  checkUrl,
  findConversationTextInUrl,
  type ConversationIndex,
  type UrlPolicyOptions,
} from './url-policy';
import type { ReaderSettings } from './web-tool-settings';

export const OPEN_URL_TOOL_NAME = 'open_url';
/** Pages one call may ask for. */
export const MAX_URLS_PER_CALL = 5;
/** Bytes read of one page at most (HTML carries much markup around its text). */
export const MAX_PAGE_BYTES = 3_000_000;
/** Characters of one page's text handed to the model at most. */
export const MAX_PAGE_CHARACTERS = 30_000;

/** How many characters the turn may still read; shared by every open_url call of the turn. */
export interface CharacterBudget {
  remaining(): number;
  /** Takes up to `wanted` characters and returns how many were granted. */
  take(wanted: number): number;
}

export function createCharacterBudget(total: number): CharacterBudget {
  let left = total;
  return {
    remaining: () => left,
    take(wanted) {
      const granted = Math.max(0, Math.min(wanted, left));
      left -= granted;
      return granted;
    },
  };
}

export interface OpenUrlDeps {
  http: HttpFetcher;
  extractor: ReadableTextExtractor;
  confirmation: ConfirmationPort;
  policy: UrlPolicyOptions;
  reader: ReaderSettings | null;
  budget: CharacterBudget;
  /** What was said so far, to notice conversation text in an address. */
  conversation: ConversationIndex;
  /** URLs this turn's searches returned (keys from toUrlKey): opening them asks nothing. */
  searchedUrls: ReadonlySet<string>;
}

export const openUrlInputSchema = z.object({
  urls: z
    .array(z.string().trim().min(1))
    .min(1, 'Give at least one URL.')
    .max(MAX_URLS_PER_CALL, `Open at most ${MAX_URLS_PER_CALL} URLs per call.`),
});
export type OpenUrlInput = z.infer<typeof openUrlInputSchema>;

type PageOutcome =
  { ok: true; document: ToolDocument; isCut: boolean } | { ok: false; url: string; reason: string };

/**
 * open_url: reads web pages the model chose, several at once, as documents it can
 * cite. Every URL passes the URL policy; one whose address (query, path or sub-domain) carries
 * conversation text asks the user first; pages are read directly, or through the user's
 * reader/proxy when the site does not allow browsers (or always, if so configured). HTML becomes
 * its readable text.
 */
export function createOpenUrlTool(deps: OpenUrlDeps): Tool<OpenUrlInput> {
  return {
    name: OPEN_URL_TOOL_NAME,
    description:
      'Opens web pages and returns their readable text as documents you can cite. Give the full http(s) URLs, up to five at once.',
    usage:
      'read the full text of pages, e.g. the most promising results of web_search or a link the user gave. Open several promising pages in one call.',
    isSearch: true,
    inputSchema: openUrlInputSchema,
    async execute(input, { signal }) {
      const unique = [...new Set(input.urls)];
      const fetched = await Promise.all(unique.map((url) => readPage(url, deps, signal)));
      // The budget is spent in the order the model listed the pages, not in arrival order.
      const outcomes = fetched.map((page) => (page.ok ? applyBudget(page, deps.budget) : page));
      return toOutput(outcomes);
    },
  };
}

function toOutput(outcomes: PageOutcome[]): ToolOutput {
  const documents = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.document] : []));
  const notes = outcomes.flatMap((outcome) =>
    outcome.ok ? [] : [`Not opened: ${outcome.url}: ${outcome.reason}`],
  );
  if (documents.length === 0) return { kind: 'text', content: notes.join('\n'), isError: true };
  return {
    kind: 'documents',
    documents,
    emptyNotice: 'No page could be opened.',
    ...(notes.length > 0 ? { notes } : {}),
  };
}

type FetchedPage = {
  ok: true;
  url: string;
  title: string;
  text: string;
  finalUrl: string;
  isTruncated: boolean;
};

async function readPage(
  rawUrl: string,
  deps: OpenUrlDeps,
  signal: AbortSignal,
): Promise<FetchedPage | { ok: false; url: string; reason: string }> {
  const verdict = checkUrl(rawUrl, deps.policy);
  if (!verdict.isAllowed) return { ok: false, url: rawUrl, reason: verdict.reason };
  const url = verdict.url;

  if (!deps.searchedUrls.has(toUrlKey(url))) {
    const carried = findConversationTextInUrl(url, deps.conversation);
    if (carried !== null) {
      const isConfirmed = await deps.confirmation.requestConfirmation({
        kind: 'open_url_with_conversation_text',
        toolName: OPEN_URL_TOOL_NAME,
        url,
        reason: `The model wants to open ${url}, whose address would send "${carried}" from this conversation to ${new URL(url).host}.`,
      });
      if (!isConfirmed) {
        return {
          ok: false,
          url,
          reason:
            'the user did not allow it, because its address carries text from this conversation.',
        };
      }
    }
  }

  const response = await fetchPage(url, deps, signal);
  if (!response.ok) return { ok: false, url, reason: response.reason };
  const { value } = response;
  if (value.status < 200 || value.status >= 300)
    return { ok: false, url, reason: `the site answered HTTP ${value.status}.` };
  const read = readBody(value, deps.extractor);
  if (!read.ok) return { ok: false, url, reason: read.reason };
  if (read.text.trim() === '') return { ok: false, url, reason: 'the page has no readable text.' };
  return {
    ok: true,
    url,
    title: read.title,
    text: read.text,
    finalUrl: value.url,
    isTruncated: value.isTruncated,
  };
}

async function fetchPage(
  url: string,
  deps: OpenUrlDeps,
  signal: AbortSignal,
): Promise<{ ok: true; value: HttpResponse } | { ok: false; reason: string }> {
  const checkHop = (hop: string): string | null => {
    const verdict = checkUrl(hop, deps.policy);
    return verdict.isAllowed ? null : verdict.reason;
  };
  if (!deps.reader?.shouldAlwaysUse) {
    const direct = await deps.http.fetch(url, {
      signal,
      maxBytes: MAX_PAGE_BYTES,
      checkUrl: checkHop,
    });
    if (direct.ok) return direct;
    // A refusal stands; only a site the browser cannot read goes through the reader.
    if (direct.error.code !== 'network' || !deps.reader)
      return { ok: false, reason: direct.error.message };
  }
  const reader = deps.reader;
  // The reader is the user's own choice of service, so the policy applies to the page URL
  // (checked above), not to the reader's address; redirects happen out of our sight there.
  const viaReader = await deps.http.fetch(buildReaderUrl(reader.urlTemplate, url), {
    signal,
    maxBytes: MAX_PAGE_BYTES,
    headers: reader.headers,
  });
  if (!viaReader.ok)
    return { ok: false, reason: `the reader could not fetch it: ${viaReader.error.message}` };
  return { ok: true, value: { ...viaReader.value, url } };
}

export function buildReaderUrl(template: string, url: string): string {
  return template.replaceAll('{raw_url}', url).replaceAll('{url}', encodeURIComponent(url));
}

const HTML_TYPES = ['text/html', 'application/xhtml+xml'];
const TEXT_TYPES = [
  'text/',
  'application/json',
  'application/xml',
  'application/ld+json',
  'application/rss+xml',
  'application/atom+xml',
];

function readBody(
  response: HttpResponse,
  extractor: ReadableTextExtractor,
): { ok: true; title: string; text: string } | { ok: false; reason: string } {
  const contentType =
    (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const looksLikeHtml =
    contentType === '' && /^\s*<(!doctype html|html|head|body)/i.test(response.bodyText);
  if (HTML_TYPES.includes(contentType) || looksLikeHtml) {
    const readable = extractor.extract(response.bodyText, response.url);
    return {
      ok: true,
      title: readable.title.trim() || titleFromUrl(response.url),
      text: readable.text,
    };
  }
  if (contentType === '' || TEXT_TYPES.some((type) => contentType.startsWith(type))) {
    return { ok: true, title: titleFromUrl(response.url), text: response.bodyText };
  }
  return { ok: false, reason: `it is a ${contentType} file, which open_url cannot read.` };
}

function titleFromUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const last = parsed.pathname.split('/').filter(Boolean).pop();
    return last ? `${parsed.host}: ${decodeURIComponent(last)}` : parsed.host;
  } catch {
    return url;
  }
}

function applyBudget(page: FetchedPage, budget: CharacterBudget): PageOutcome {
  const wanted = Math.min(page.text.length, MAX_PAGE_CHARACTERS);
  const granted = budget.take(wanted);
  if (granted === 0) {
    return {
      ok: false,
      url: page.url,
      reason: "this turn's reading budget is used up; answer with the pages already opened.",
    };
  }
  const isCut = granted < page.text.length || page.isTruncated;
  const text =
    granted < page.text.length
      ? `${page.text.slice(0, granted)}\n[… the rest of the page was cut]`
      : page.text;
  const metadata = [
    `URL: ${page.url}`,
    ...(page.finalUrl !== page.url ? [`redirected to ${page.finalUrl}`] : []),
    ...(isCut ? ['shortened'] : []),
  ].join(' · ');
  return {
    ok: true,
    document: { title: page.title, url: page.url, metadata, contents: text },
    isCut,
  };
}
