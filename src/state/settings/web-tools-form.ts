import type { McpServerConfig, SearchBackendConfig, WebToolSettings } from '../../workers/agent/agent.api';
import { err, ok, type Result } from '../../util/result';
import { formatHeaderLines, parseHeaderLines } from './header-lines';
import { readField, readHeaders, readString } from './web-tools-stored';

/** open_url's default characters per turn (DEFAULT_TURN_CHARACTER_BUDGET in the worker). */
export const DEFAULT_TURN_CHARACTER_BUDGET = 80_000;

export type SearchKind = SearchBackendConfig['kind'] | 'none';

/** What the web tools form edits, as typed. */
export interface WebToolsDraft {
  isEnabled: boolean;
  searchKind: SearchKind;
  searchApiKey: string;
  /** Optional for Tavily and Exa (their public API), required for SearXNG. */
  searchBaseUrl: string;
  /** SearXNG only: headers for an instance behind auth. */
  searchHeadersText: string;
  readerUrlTemplate: string;
  shouldAlwaysUseReader: boolean;
  shouldAllowPrivateNetwork: boolean;
  turnCharacterBudget: string;
}

export const SEARCH_KIND_LABELS: Readonly<Record<SearchKind, string>> = {
  none: 'None (no web search)',
  tavily: 'Tavily',
  exa: 'Exa',
  searxng: 'SearXNG (your instance)',
};

/** The stored setting (any version, or nothing yet) as the form's fields. */
export function toWebToolsDraft(stored: unknown): WebToolsDraft {
  const search = readField(stored, 'search');
  const kind = readString(search, 'kind');
  const searchKind: SearchKind = kind === 'tavily' || kind === 'exa' || kind === 'searxng' ? kind : 'none';
  const reader = readField(stored, 'reader');
  const budget = readField(stored, 'turnCharacterBudget');
  return {
    isEnabled: readField(stored, 'isEnabled') !== false,
    searchKind,
    searchApiKey: readString(search, 'apiKey'),
    searchBaseUrl: readString(search, 'baseUrl'),
    searchHeadersText: searchKind === 'searxng' ? formatHeaderLines(readHeaders(search, 'headers')) : '',
    readerUrlTemplate: readString(reader, 'urlTemplate'),
    shouldAlwaysUseReader: readField(reader, 'shouldAlwaysUse') === true,
    shouldAllowPrivateNetwork: readField(stored, 'shouldAllowPrivateNetwork') === true,
    turnCharacterBudget: String(typeof budget === 'number' ? budget : DEFAULT_TURN_CHARACTER_BUDGET),
  };
}

function checkHttpUrl(text: string, what: string): Result<string, string> {
  try {
    const url = new URL(text);
    if (url.protocol === 'https:' || url.protocol === 'http:') return ok(text);
  } catch {
    // Falls through to the sentence below.
  }
  return err(`${what} must be a full http:// or https:// URL.`);
}

/** The search part alone, for the Test button (which runs before saving). */
export function toSearchBackendConfig(draft: WebToolsDraft): Result<SearchBackendConfig | null, string> {
  const baseUrl = draft.searchBaseUrl.trim();
  switch (draft.searchKind) {
    case 'none':
      return ok(null);
    case 'tavily':
    case 'exa': {
      const apiKey = draft.searchApiKey.trim();
      if (apiKey === '') return err(`${SEARCH_KIND_LABELS[draft.searchKind]} needs an API key.`);
      if (baseUrl === '') return ok({ kind: draft.searchKind, apiKey });
      const checked = checkHttpUrl(baseUrl, 'The search API URL');
      return checked.ok ? ok({ kind: draft.searchKind, apiKey, baseUrl }) : checked;
    }
    case 'searxng': {
      if (baseUrl === '') return err('SearXNG needs the address of your instance.');
      const checked = checkHttpUrl(baseUrl, 'The SearXNG address');
      if (!checked.ok) return checked;
      const headers = parseHeaderLines(draft.searchHeadersText);
      return headers.ok ? ok({ kind: 'searxng', baseUrl, headers: headers.value }) : headers;
    }
  }
}

/** Checks the whole form; the result is what the worker's webToolSettingsSchema accepts. */
export function toWebToolSettings(draft: WebToolsDraft): Result<WebToolSettings, string> {
  const search = toSearchBackendConfig(draft);
  if (!search.ok) return search;
  let reader: WebToolSettings['reader'] = null;
  const template = draft.readerUrlTemplate.trim();
  if (template !== '') {
    if (!/^https?:\/\/\S+$/.test(template)) {
      return err('The reader URL must start with http:// or https://.');
    }
    if (!template.includes('{url}') && !template.includes('{raw_url}')) {
      return err('The reader URL needs {url} or {raw_url} where the page address goes.');
    }
    reader = { urlTemplate: template, shouldAlwaysUse: draft.shouldAlwaysUseReader, headers: {} };
  }
  const budget = Number(draft.turnCharacterBudget.trim().replace(/[_,\s]/g, ''));
  if (!Number.isInteger(budget) || budget <= 0) {
    return err('The reading budget must be a whole number of characters, e.g. 80000.');
  }
  return ok({
    isEnabled: draft.isEnabled,
    search: search.value,
    reader,
    shouldAllowPrivateNetwork: draft.shouldAllowPrivateNetwork,
    turnCharacterBudget: budget,
  });
}

/** What the MCP server form edits, as typed. */
export interface McpServerDraft {
  id: string;
  name: string;
  url: string;
  /** One `Name: value` per line, e.g. `Authorization: Bearer …`. */
  headersText: string;
  isEnabled: boolean;
  allowedTools: string[];
}

/** Server names go into tool names (`mcp__<name>__<tool>`), so keep them short. */
const MAX_MCP_NAME_LENGTH = 40;

export function createMcpServerDraft(id: string): McpServerDraft {
  return { id, name: '', url: '', headersText: '', isEnabled: true, allowedTools: [] };
}

export function toMcpServerDraft(server: McpServerConfig): McpServerDraft {
  return {
    id: server.id,
    name: server.name,
    url: server.url,
    headersText: formatHeaderLines(server.headers),
    isEnabled: server.isEnabled,
    allowedTools: [...server.allowedTools],
  };
}

/** Checks the MCP form; the worker re-checks the URL with its policy when it reads it. */
export function toMcpServerConfig(draft: McpServerDraft): Result<McpServerConfig, string> {
  const name = draft.name.trim();
  if (name === '') return err('Give the server a short name, e.g. "weather".');
  if (name.length > MAX_MCP_NAME_LENGTH) return err(`Keep the name under ${MAX_MCP_NAME_LENGTH} characters.`);
  const url = draft.url.trim();
  const checked = checkHttpUrl(url, 'The server URL');
  if (!checked.ok) return checked;
  if (new URL(url).username || new URL(url).password) {
    return err('Put credentials in the auth header, not in the URL.');
  }
  const headers = parseHeaderLines(draft.headersText);
  if (!headers.ok) return headers;
  return ok({
    id: draft.id,
    name,
    url,
    headers: headers.value,
    allowedTools: [...new Set(draft.allowedTools)],
    isEnabled: draft.isEnabled,
  });
}
