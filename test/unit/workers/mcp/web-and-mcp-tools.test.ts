import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WEB_TOOL_SETTINGS_KEY } from '../../../../src/core/agent/tools/web-tool-settings';
import type { SettingsStore } from '../../../../src/core/ports';
import { connectMcpServer } from '../../../../src/workers/agent/mcp/mcp-client';
import { createMcpConnectionPool } from '../../../../src/workers/agent/mcp/mcp-connection-pool';
import { MCP_SERVERS_SETTING_KEY } from '../../../../src/workers/agent/mcp/mcp-server-config';
import { loadTurnToolKit } from '../../../../src/workers/agent/mcp/web-and-mcp-tools';
import { buildAgent, buildUserMessage } from '../../../builders/messages';
import { startMockWeb, type StartedMockWeb } from '../../../mock-llm/web/web-server';

let web: StartedMockWeb;
beforeAll(async () => {
  web = await startMockWeb();
});
afterAll(() => web.close());

const pool = createMcpConnectionPool();
afterEach(() => pool.closeAll());

function buildSettings(values: Record<string, unknown>): SettingsStore {
  const map = new Map(Object.entries(values));
  return {
    get: <T>(key: string) => Promise.resolve(map.get(key) as T | undefined),
    set: (key, value) => {
      map.set(key, value);
      return Promise.resolve();
    },
  };
}

const confirmation = { requestConfirmation: () => Promise.resolve(true) };
const chain = [buildUserMessage({ text: 'What is the weather in Lyon?' })];

function servers(overrides: Record<string, unknown> = {}) {
  return [
    {
      id: 'srv-1',
      name: 'weather',
      url: `${web.url}/web/mcp`,
      headers: { Authorization: 'Bearer mcp-1' },
      ...overrides,
    },
  ];
}

describe('the turn tool kit', () => {
  it('gives the built-in agent the web tools and every tool of the enabled MCP servers', async () => {
    const settings = buildSettings({
      [WEB_TOOL_SETTINGS_KEY]: {
        search: { kind: 'exa', apiKey: 'exa-1', baseUrl: `${web.url}/web/exa` },
      },
      [MCP_SERVERS_SETTING_KEY]: servers(),
    });
    const kit = await loadTurnToolKit({ settings, confirmation, mcpPool: pool });
    expect(kit.warnings).toEqual([]);
    expect(kit.createTools({ agent: null, chain }).map((tool) => tool.name)).toEqual([
      'web_search',
      'open_url',
      'mcp__weather__get_forecast',
      'mcp__weather__add',
      'mcp__weather__always_fails',
    ]);
  });

  it('gives a custom agent only the tools it enabled', async () => {
    const settings = buildSettings({ [MCP_SERVERS_SETTING_KEY]: servers() });
    const kit = await loadTurnToolKit({ settings, confirmation, mcpPool: pool });
    const agent = buildAgent({ isBuiltIn: false, enabledTools: ['open_url', 'mcp__weather__add'] });
    expect(kit.createTools({ agent, chain }).map((tool) => tool.name)).toEqual([
      'open_url',
      'mcp__weather__add',
    ]);
  });

  it('goes on without a server it cannot reach and says so', async () => {
    const settings = buildSettings({
      [WEB_TOOL_SETTINGS_KEY]: { isEnabled: false },
      [MCP_SERVERS_SETTING_KEY]: servers({ headers: { Authorization: 'Bearer wrong' } }),
    });
    const kit = await loadTurnToolKit({ settings, confirmation, mcpPool: pool });
    expect(kit.createTools({ agent: null, chain })).toEqual([]);
    expect(kit.warnings).toEqual([
      expect.stringContaining('MCP server "weather" could not be reached') as string,
    ]);
  });

  it('reuses one connection across turns until the server settings change', async () => {
    let connects = 0;
    const counting = createMcpConnectionPool((config, options) => {
      connects++;
      return connectMcpServer(config, options);
    });
    const settings = buildSettings({ [MCP_SERVERS_SETTING_KEY]: servers() });
    await loadTurnToolKit({ settings, confirmation, mcpPool: counting });
    await loadTurnToolKit({ settings, confirmation, mcpPool: counting });
    expect(connects).toBe(1);
    await settings.set(
      MCP_SERVERS_SETTING_KEY,
      servers({ headers: { Authorization: 'Bearer mcp-2' } }),
    );
    await loadTurnToolKit({ settings, confirmation, mcpPool: counting });
    expect(connects).toBe(2);
    await counting.closeAll();
  });
});
