import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TURN_CHARACTER_BUDGET as WORKER_TURN_BUDGET,
  WEB_TOOL_SETTINGS_KEY,
  webToolSettingsSchema,
} from '../../../../src/core/agent/tools/web-tool-settings';
import { providerConfigSchema } from '../../../../src/core/model';
import { formatHeaderLines, parseHeaderLines } from '../../../../src/state/settings/header-lines';
import {
  createProviderDraft,
  maskApiKey,
  parseContextWindowOverride,
  PRESET_ORDER,
  toProviderDraft,
  validateProviderDraft,
} from '../../../../src/state/settings/provider-form';
import { parseTheme, toThemeAttribute } from '../../../../src/state/shell/theme';
import {
  createMcpServerDraft,
  DEFAULT_TURN_CHARACTER_BUDGET,
  toMcpServerConfig,
  toMcpServerDraft,
  toWebToolsDraft,
  toWebToolSettings,
} from '../../../../src/state/settings/web-tools-form';
import {
  MCP_SERVERS_SETTING_KEY,
  readStoredMcpServers,
  WEB_TOOLS_SETTING_KEY,
} from '../../../../src/state/settings/web-tools-stored';
import { SYSTEM_PROMPT_SETTING_KEY } from '../../../../src/state/settings/settings.svelte';
import { SYSTEM_PROMPT_SETTING } from '../../../../src/workers/agent/agent-host';
import {
  MCP_SERVERS_SETTING_KEY as WORKER_MCP_KEY,
  mcpServerConfigSchema,
} from '../../../../src/workers/agent/mcp/mcp-server-config';
import { providerPresetSchema } from '../../../../src/core/model';

describe('header lines', () => {
  it('reads one "Name: value" per line, ignoring blank lines and keeping colons in values', () => {
    expect(parseHeaderLines('Authorization: Bearer a:b\n\n  X-Trace :  1 ')).toEqual({
      ok: true,
      value: { Authorization: 'Bearer a:b', 'X-Trace': '1' },
    });
  });

  it('names the first line that is not a header', () => {
    expect(parseHeaderLines('X-Ok: 1\nnot a header')).toEqual({
      ok: false,
      error: 'Line 2 is not a header: write it as "Name: value".',
    });
  });

  it('formats headers back into lines that parse to the same headers', () => {
    const headers = { Authorization: 'Bearer x', 'X-A': 'b' };
    expect(parseHeaderLines(formatHeaderLines(headers))).toEqual({ ok: true, value: headers });
  });
});

describe('the provider form', () => {
  it('offers every endpoint preset once, and the built-in model not as an endpoint to fill in', () => {
    expect([...PRESET_ORDER].sort()).toEqual(providerPresetSchema.options.filter((preset) => preset !== 'local').sort());
  });

  it('fills the base URL and protocol from the preset', () => {
    expect(createProviderDraft('ollama')).toMatchObject({ kind: 'openai-compatible', baseUrl: 'http://localhost:11434/v1' });
    expect(createProviderDraft('anthropic')).toMatchObject({ kind: 'anthropic', baseUrl: 'https://api.anthropic.com/v1' });
  });

  it('produces fields the stored provider schema accepts', () => {
    const checked = validateProviderDraft({
      ...createProviderDraft('custom'),
      kind: 'anthropic',
      baseUrl: 'http://127.0.0.1:9000/v1///',
      headersText: 'X-Team: carrel',
      modelsText: 'model-a, model-b\nmodel-a',
    });
    expect(checked).toEqual({
      ok: true,
      value: {
        preset: 'custom',
        kind: 'anthropic',
        name: 'Custom endpoint',
        baseUrl: 'http://127.0.0.1:9000/v1',
        apiKey: '',
        headers: { 'X-Team': 'carrel' },
        models: ['model-a', 'model-b'],
      },
    });
    if (!checked.ok) return;
    const stored = { ...checked.value, id: 'p1', contextWindowOverrides: {}, createdAt: 1, updatedAt: 1 };
    expect(providerConfigSchema.safeParse(stored).success).toBe(true);
  });

  it('keeps the protocol of a preset even if the draft says otherwise', () => {
    const checked = validateProviderDraft({ ...createProviderDraft('groq'), kind: 'google', apiKey: 'k', modelsText: 'llama' });
    expect(checked.ok && checked.value.kind).toBe('openai-compatible');
  });

  it.each([
    [{ baseUrl: 'not a url' }, 'The base URL is not a valid URL (e.g. http://localhost:11434/v1).'],
    [{ baseUrl: 'ftp://example.com' }, 'The base URL must start with https:// or http://.'],
    [{ baseUrl: 'https://user:pw@example.com/v1' }, 'Put credentials in the API key or a header, not in the base URL.'],
    [{ apiKey: '' }, 'OpenAI needs an API key.'],
    [{ modelsText: ' , ' }, 'Enter the model to use, e.g. gpt-4o-mini or llama3.2 (Test connection lists them).'],
  ])('refuses %o with a sentence to act on', (change, message) => {
    const draft = { ...createProviderDraft('openai'), apiKey: 'sk-test', modelsText: 'gpt-4o-mini', ...change };
    expect(validateProviderDraft(draft)).toEqual({ ok: false, error: message });
  });

  it('turns a stored provider back into the same fields', () => {
    const fields = {
      preset: 'openrouter' as const,
      kind: 'openai-compatible' as const,
      name: 'OR',
      baseUrl: 'https://openrouter.ai/api/v1',
      apiKey: 'sk-or-123456789',
      headers: { 'X-Title': 'Carrel' },
      models: ['a', 'b'],
    };
    expect(validateProviderDraft(toProviderDraft(fields))).toEqual({ ok: true, value: fields });
  });

  it('masks a key, showing only its ends, and short keys not at all', () => {
    expect(maskApiKey('sk-proj-abcdefghijklmnop')).toBe('sk-p••••mnop');
    expect(maskApiKey('short-key')).toBe('••••••••');
    expect(maskApiKey('')).toBe('no key');
  });

  it('reads a context-window override, empty meaning none', () => {
    expect(parseContextWindowOverride(' 32_768 ')).toEqual({ ok: true, value: 32768 });
    expect(parseContextWindowOverride('')).toEqual({ ok: true, value: null });
    expect(parseContextWindowOverride('12.5').ok).toBe(false);
    expect(parseContextWindowOverride('100').ok).toBe(false);
  });
});

describe('the web tools form', () => {
  it('uses the settings keys and default budget the worker reads', () => {
    expect(WEB_TOOLS_SETTING_KEY).toBe(WEB_TOOL_SETTINGS_KEY);
    expect(MCP_SERVERS_SETTING_KEY).toBe(WORKER_MCP_KEY);
    expect(SYSTEM_PROMPT_SETTING_KEY).toBe(SYSTEM_PROMPT_SETTING);
    expect(DEFAULT_TURN_CHARACTER_BUDGET).toBe(WORKER_TURN_BUDGET);
  });

  it('starts from the worker defaults when nothing is stored', () => {
    const defaults = webToolSettingsSchema.parse({});
    expect(toWebToolSettings(toWebToolsDraft(undefined))).toEqual({ ok: true, value: defaults });
  });

  it.each([
    { kind: 'searxng' as const, baseUrl: 'http://127.0.0.1:9/web/searxng', headers: { Authorization: 'Basic x' } },
    { kind: 'tavily' as const, apiKey: 'tvly-1', baseUrl: 'http://127.0.0.1:9/web/tavily' },
    { kind: 'exa' as const, apiKey: 'exa-1' },
  ])('round-trips a stored %s configuration through the form, and the worker accepts it', (search) => {
    const stored = webToolSettingsSchema.parse({
      search,
      reader: { urlTemplate: 'https://r.jina.ai/{raw_url}', shouldAlwaysUse: true },
      shouldAllowPrivateNetwork: true,
      turnCharacterBudget: 1234,
    });
    const saved = toWebToolSettings(toWebToolsDraft(stored));
    expect(saved).toEqual({ ok: true, value: stored });
    expect(saved.ok && webToolSettingsSchema.parse(saved.value)).toEqual(stored);
  });

  it.each([
    [{ searchKind: 'tavily' as const }, 'Tavily needs an API key.'],
    [{ searchKind: 'searxng' as const }, 'SearXNG needs the address of your instance.'],
    [{ searchKind: 'searxng' as const, searchBaseUrl: 'javascript:alert(1)' }, 'The SearXNG address must be a full http:// or https:// URL.'],
    [{ readerUrlTemplate: 'https://reader.example/' }, 'The reader URL needs {url} or {raw_url} where the page address goes.'],
    [{ turnCharacterBudget: '-5' }, 'The reading budget must be a whole number of characters, e.g. 80000.'],
  ])('refuses %o with a sentence to act on', (change, message) => {
    expect(toWebToolSettings({ ...toWebToolsDraft(undefined), ...change })).toEqual({ ok: false, error: message });
  });

  it('reads a stored value of the wrong shape as the defaults instead of failing', () => {
    expect(toWebToolsDraft({ search: 42, reader: 'x', turnCharacterBudget: 'many' })).toEqual(toWebToolsDraft(null));
  });
});

describe('the MCP server form', () => {
  it('builds a server the worker schema accepts, with the auth header', () => {
    const draft = {
      ...createMcpServerDraft('s1'),
      name: ' weather ',
      url: 'http://127.0.0.1:9/web/mcp',
      headersText: 'Authorization: Bearer mcp-1',
      allowedTools: ['add', 'add'],
    };
    const config = toMcpServerConfig(draft);
    expect(config).toEqual({
      ok: true,
      value: {
        id: 's1',
        name: 'weather',
        url: 'http://127.0.0.1:9/web/mcp',
        headers: { Authorization: 'Bearer mcp-1' },
        allowedTools: ['add'],
        isEnabled: true,
      },
    });
    expect(config.ok && mcpServerConfigSchema.parse(config.value)).toEqual(config.ok && config.value);
    expect(config.ok && toMcpServerConfig(toMcpServerDraft(config.value))).toEqual(config);
  });

  it.each([
    [{ name: '' }, 'Give the server a short name, e.g. "weather".'],
    [{ url: 'file:///etc/passwd' }, 'The server URL must be a full http:// or https:// URL.'],
    [{ url: 'https://me:secret@mcp.example.com' }, 'Put credentials in the auth header, not in the URL.'],
    [{ headersText: 'Bearer abc' }, 'Line 1 is not a header: write it as "Name: value".'],
  ])('refuses %o with a sentence to act on', (change, message) => {
    const draft = { ...createMcpServerDraft('s1'), name: 'w', url: 'https://mcp.example.com/mcp', ...change };
    expect(toMcpServerConfig(draft)).toEqual({ ok: false, error: message });
  });

  it('keeps stored servers that are shaped like one and drops the rest', () => {
    const good = { id: 'a', name: 'A', url: 'https://a.example/mcp', headers: {}, allowedTools: ['x'], isEnabled: false };
    expect(readStoredMcpServers([good, { id: 'b' }, null, 'x'])).toEqual([good]);
    expect(readStoredMcpServers('not a list')).toEqual([]);
  });
});

describe('the theme', () => {
  it('falls back to the system theme for anything unknown, and leaves it to CSS then', () => {
    expect(parseTheme('dark')).toBe('dark');
    expect(parseTheme('purple')).toBe('system');
    expect(parseTheme(undefined)).toBe('system');
    expect(toThemeAttribute('system')).toBeNull();
    expect(toThemeAttribute('light')).toBe('light');
  });
});
