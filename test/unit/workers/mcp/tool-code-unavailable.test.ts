import { describe, expect, it, vi } from 'vitest';
import { WEB_TOOL_SETTINGS_KEY } from '../../../../src/core/agent/tools/web-tool-settings';
import type { SettingsStore } from '../../../../src/core/ports';
import type { McpConnectionPool } from '../../../../src/workers/agent/mcp/mcp-connection-pool';
import { MCP_SERVERS_SETTING_KEY } from '../../../../src/workers/agent/mcp/mcp-server-config';
import { buildUserMessage } from '../../../builders/messages';

// The code of the page reader and of the MCP tools is fetched on first use: here it cannot be
// (a chunk cut off, or gone after an update), as a browser's failed import() rejects.
vi.mock('../../../../src/workers/agent/readable-text', () => {
  throw new Error('Failed to fetch dynamically imported module: readable-text.js');
});
vi.mock('../../../../src/workers/agent/mcp/mcp-tools', () => {
  throw new Error('Failed to fetch dynamically imported module: mcp-tools.js');
});

const { loadTurnToolKit } = await import('../../../../src/workers/agent/mcp/web-and-mcp-tools');

function buildSettings(values: Record<string, unknown>): SettingsStore {
  const map = new Map(Object.entries(values));
  return {
    get: <T>(key: string) => Promise.resolve(map.get(key) as T | undefined),
    set: () => Promise.resolve(),
  };
}

describe('tool code that cannot be fetched', () => {
  it('costs the turn those tools, with a warning each, and the answer goes on', async () => {
    const connects: string[] = [];
    const pool: McpConnectionPool = {
      get: (config) => {
        connects.push(config.id);
        return Promise.reject(new Error('not expected'));
      },
      evict: () => Promise.resolve(),
      closeAll: () => Promise.resolve(),
    };
    const settings = buildSettings({
      [WEB_TOOL_SETTINGS_KEY]: { search: { kind: 'exa', apiKey: 'exa-1', baseUrl: 'https://exa.example' } },
      [MCP_SERVERS_SETTING_KEY]: [{ id: 'srv-1', name: 'weather', url: 'https://mcp.example/mcp', headers: {} }],
    });
    const kit = await loadTurnToolKit({
      settings,
      confirmation: { requestConfirmation: () => Promise.resolve(true) },
      mcpPool: pool,
    });
    expect(kit.warnings).toEqual([
      'The MCP tools could not be loaded, so they are not offered in this answer.',
      'The web tools could not be loaded, so they are not offered in this answer.',
    ]);
    expect(kit.createTools({ agent: null, chain: [buildUserMessage({ text: 'Hello' })] })).toEqual([]);
    expect(connects).toEqual([]);
  });
});
