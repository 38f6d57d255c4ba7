/** The settings key under which the user's MCP servers are stored. */
export const MCP_SERVERS_SETTING_KEY = 'mcpServers';

// The schema lives with every other setting's (core/model/settings.ts).
export { mcpServerConfigSchema, type McpServerConfig } from '../../../core/model/settings';
