import { describe, expect, it } from 'vitest';
import { DEFAULT_SYSTEM_PROMPT } from '../../../../src/core/context';
import type { SettingsStore } from '../../../../src/core/ports';
import { SettingsState } from '../../../../src/state/settings/settings.svelte';
import { createMcpServerDraft, toWebToolsDraft } from '../../../../src/state/settings/web-tools-form';
import type { McpServerConfig, SearchBackendConfig } from '../../../../src/workers/agent/agent.api';

function createMemorySettings(initial: Record<string, unknown> = {}): SettingsStore & { values: Map<string, unknown> } {
  const values = new Map(Object.entries(initial));
  return {
    values,
    get: <T,>(key: string) => Promise.resolve(values.get(key) as T | undefined),
    set: (key, value) => {
      // Like IndexedDB: what cannot be structured-cloned is refused.
      values.set(key, structuredClone(value));
      return Promise.resolve();
    },
  };
}

function createState(initial: Record<string, unknown> = {}) {
  const store = createMemorySettings(initial);
  const root = { dataset: {} as Record<string, string | undefined> };
  const tested: { search: SearchBackendConfig[]; mcp: McpServerConfig[] } = { search: [], mcp: [] };
  let nextId = 0;
  const state = new SettingsState({
    store,
    root: root as unknown as HTMLElement,
    newId: () => `id-${++nextId}`,
    agent: {
      testWebSearch: (config) => {
        tested.search.push(config);
        return Promise.resolve(
          config.kind === 'tavily' && config.apiKey === 'bad'
            ? { ok: false, error: { code: 'auth', message: 'Tavily refused the request (HTTP 401).' } }
            : { ok: true, value: { resultCount: 3 } },
        );
      },
      testMcpServer: (config) => {
        tested.mcp.push(config);
        return Promise.resolve({ ok: true, value: { serverName: 'mock', toolNames: ['add'] } });
      },
    },
  });
  return { state, store, root, tested };
}

describe('SettingsState', () => {
  it('stores an edited system prompt, and the default text as "use the default"', async () => {
    const { state, store } = createState();
    await state.load();
    await state.saveSystemPrompt('Be brief. It is {{CURRENT_DATETIME}}.');
    expect(store.values.get('systemPrompt')).toBe('Be brief. It is {{CURRENT_DATETIME}}.');
    await state.saveSystemPrompt(`${DEFAULT_SYSTEM_PROMPT}\n`);
    expect(store.values.get('systemPrompt')).toBeNull();
    await state.saveSystemPrompt('Custom');
    await state.resetSystemPrompt();
    expect(state.systemPrompt).toBeNull();
  });

  it('applies the stored theme on load and a new one at once', async () => {
    const { state, store, root } = createState({ theme: 'dark' });
    await state.load();
    expect(root.dataset['theme']).toBe('dark');
    await state.setTheme('system');
    expect(root.dataset['theme']).toBeUndefined();
    expect(store.values.get('theme')).toBe('system');
  });

  it('saves valid web tool settings and refuses invalid ones without storing', async () => {
    const { state, store } = createState();
    await state.load();
    const refused = await state.saveWebTools({ ...toWebToolsDraft(null), searchKind: 'tavily' });
    expect(refused).toEqual({ ok: false, error: 'Tavily needs an API key.' });
    expect(store.values.has('webTools')).toBe(false);
    const saved = await state.saveWebTools({
      ...toWebToolsDraft(null),
      searchKind: 'searxng',
      searchBaseUrl: 'http://127.0.0.1:1/web/searxng',
      shouldAllowPrivateNetwork: true,
    });
    expect(saved.ok).toBe(true);
    expect(store.values.get('webTools')).toMatchObject({ search: { kind: 'searxng' }, shouldAllowPrivateNetwork: true });
  });

  it('tests the search with the unsaved form and reports the worker’s message', async () => {
    const { state, tested } = createState();
    const draft = { ...toWebToolsDraft(null), searchKind: 'tavily' as const, searchApiKey: 'bad' };
    expect(await state.testWebSearch(draft)).toEqual({ ok: false, error: 'Tavily refused the request (HTTP 401).' });
    expect(await state.testWebSearch({ ...draft, searchApiKey: 'tvly-ok' })).toEqual({
      ok: true,
      value: 'The search works: it returned 3 results.',
    });
    expect(tested.search).toEqual([
      { kind: 'tavily', apiKey: 'bad' },
      { kind: 'tavily', apiKey: 'tvly-ok' },
    ]);
  });

  it('adds, edits and removes MCP servers, refusing a second server with the same name', async () => {
    const { state, store } = createState();
    await state.load();
    const draft = { ...createMcpServerDraft(state.newId()), name: 'Weather', url: 'https://mcp.example.com/mcp' };
    expect((await state.saveMcpServer(draft)).ok).toBe(true);
    expect(await state.saveMcpServer({ ...draft, id: state.newId(), name: 'weather' })).toEqual({
      ok: false,
      error: 'Another server is already named "weather".',
    });
    await state.saveMcpServer({ ...draft, allowedTools: ['get_forecast'] });
    expect(store.values.get('mcpServers')).toEqual([
      { id: 'id-1', name: 'Weather', url: 'https://mcp.example.com/mcp', headers: {}, allowedTools: ['get_forecast'], isEnabled: true },
    ]);
    await state.removeMcpServer('id-1');
    expect(store.values.get('mcpServers')).toEqual([]);
    expect(state.mcpServers).toEqual([]);
  });
});
