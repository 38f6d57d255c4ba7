/**
 * The web tools and MCP servers as stored, read at every start without the forms' code (which
 * loads with Settings): the settings keys, and the stored servers from any version.
 */
import type { McpServerConfig } from '../../workers/agent/agent.api';

/** Settings keys the agent worker reads (WEB_TOOL_SETTINGS_KEY, MCP_SERVERS_SETTING_KEY). */
export const WEB_TOOLS_SETTING_KEY = 'webTools';
export const MCP_SERVERS_SETTING_KEY = 'mcpServers';

/** Reads a field of a stored object from any version without trusting its type. */
export function readField(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

export function readString(value: unknown, key: string): string {
  const field = readField(value, key);
  return typeof field === 'string' ? field : '';
}

export function readHeaders(value: unknown, key: string): Record<string, string> {
  const field = readField(value, key);
  if (typeof field !== 'object' || field === null) return {};
  return Object.fromEntries(Object.entries(field).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/** Stored servers from any version: drops entries that are not even shaped like one. */
export function readStoredMcpServers(stored: unknown): McpServerConfig[] {
  if (!Array.isArray(stored)) return [];
  return stored.flatMap((raw: unknown) => {
    const id = readString(raw, 'id');
    const name = readString(raw, 'name');
    const url = readString(raw, 'url');
    if (id === '' || name === '' || url === '') return [];
    const allowed = readField(raw, 'allowedTools');
    return [
      {
        id,
        name,
        url,
        headers: readHeaders(raw, 'headers'),
        allowedTools: Array.isArray(allowed) ? allowed.filter((tool): tool is string => typeof tool === 'string') : [],
        isEnabled: readField(raw, 'isEnabled') !== false,
      },
    ];
  });
}
