import { DEFAULT_AGENT_ID } from '../../../core/agent/default-agent';
import type { Tool } from '../../../core/agent/tools/tool';
import { OPEN_URL_TOOL_NAME } from '../../../core/agent/tools/open-url.tool';
import { WEB_SEARCH_TOOL_NAME } from '../../../core/agent/tools/web-search.tool';
import { collectConversationTexts, createWebTools } from '../../../core/agent/tools/web-tools';
import {
  WEB_TOOL_SETTINGS_KEY,
  webToolSettingsSchema,
  type WebToolSettings,
} from '../../../core/agent/tools/web-tool-settings';
import type { Agent, ChatMessageSimple } from '../../../core/model';
import type {
  ConfirmationPort,
  HttpFetcher,
  ReadableTextExtractor,
  SettingsStore,
} from '../../../core/ports';
import { createHttpFetcher } from '../http-fetcher';
import type { McpToolInfo } from './mcp-client';
import type { McpConnectionPool } from './mcp-connection-pool';
import { MCP_SERVERS_SETTING_KEY, mcpServerConfigSchema } from './mcp-server-config';

export interface TurnToolsDeps {
  settings: SettingsStore;
  confirmation: ConfirmationPort;
  mcpPool: McpConnectionPool;
  http?: HttpFetcher;
  extractor?: ReadableTextExtractor;
}

/** What the host loads once per turn (async), then turns into tools per model (sync). */
export interface TurnToolKit {
  /** The tools one model's turn offers (turn assembly adds the base and project tools). */
  createTools(args: { agent: Agent | null; chain: readonly ChatMessageSimple[] }): Tool[];
  /** MCP servers that could not be reached, for a notice; the turn goes on without them. */
  warnings: string[];
}

/**
 * Loads the web and MCP tool settings and lists the tools of every enabled MCP server (async),
 * so that turn assembly (sync, per model) can build the turn's tools from the chain and agent.
 *
 * Which agent gets what: the built-in agent (and a session without agent) gets the web tools
 * once configured and every tool of the enabled MCP servers; a custom agent gets what its
 * `enabledTools` lists: `web_search`, `open_url`, `mcp__<server>__<tool>` or `mcp:<server id>`.
 */
export async function loadTurnToolKit(
  deps: TurnToolsDeps,
  signal?: AbortSignal,
): Promise<TurnToolKit> {
  const web = webToolSettingsSchema.safeParse(
    (await deps.settings.get(WEB_TOOL_SETTINGS_KEY)) ?? {},
  );
  const webSettings: WebToolSettings = web.success ? web.data : webToolSettingsSchema.parse({});
  const warnings: string[] = web.success
    ? []
    : ['The web tool settings are invalid; using the defaults.'];

  const rawServers = await deps.settings.get<unknown[]>(MCP_SERVERS_SETTING_KEY);
  const servers = (Array.isArray(rawServers) ? rawServers : []).flatMap((raw) => {
    const parsed = mcpServerConfigSchema.safeParse(raw);
    return parsed.success && parsed.data.isEnabled ? [parsed.data] : [];
  });
  // Fetched with the MCP client only when some server is enabled (see mcp-connection-pool.ts);
  // code that cannot be fetched costs the turn those tools, not the answer.
  const mcp = servers.length > 0 ? await import('./mcp-tools').catch(() => null) : null;
  if (servers.length > 0 && mcp === null)
    warnings.push('The MCP tools could not be loaded, so they are not offered in this answer.');
  const listed = await Promise.all(
    (mcp === null ? [] : servers).map(async (server) => {
      try {
        const connection = await deps.mcpPool.get(server, signal);
        return { connection, infos: await connection.listTools(signal) };
      } catch (error) {
        await deps.mcpPool.evict(server.id);
        warnings.push(
          `MCP server "${server.name}" could not be reached, so its tools are not offered in this answer (${error instanceof Error ? error.message : String(error)}).`,
        );
        return null;
      }
    }),
  );
  const http = deps.http ?? createHttpFetcher();
  // The page reader (linkedom and Readability) is fetched only once web tools are turned on.
  const extractor = webSettings.isEnabled
    ? (deps.extractor ??
      (await import('../readable-text').then(
        (module) => module.createReadableTextExtractor(),
        () => null,
      )))
    : null;
  if (webSettings.isEnabled && extractor === null)
    warnings.push('The web tools could not be loaded, so they are not offered in this answer.');

  return {
    warnings,
    createTools({ agent, chain }) {
      const isBuiltIn = agent === null || agent.isBuiltIn || agent.id === DEFAULT_AGENT_ID;
      const enabled = agent?.enabledTools ?? [];
      const webTools = (
        extractor === null
          ? []
          : createWebTools({
              http,
              extractor,
              confirmation: deps.confirmation,
              settings: webSettings,
              conversationTexts: collectConversationTexts(chain),
            })
      ).filter((tool) => isBuiltIn || enabled.includes(tool.name));
      const mcpTools = listed.flatMap((entry) =>
        entry && mcp
          ? entry.infos
              .map((info: McpToolInfo) =>
                mcp.wrapMcpTool(info, {
                  connection: entry.connection,
                  confirmation: deps.confirmation,
                }),
              )
              .filter(
                (tool) =>
                  isBuiltIn || mcp.isMcpToolEnabled(enabled, entry.connection.config, tool.name),
              )
          : [],
      );
      return [...webTools, ...mcpTools];
    },
  };
}

export { OPEN_URL_TOOL_NAME, WEB_SEARCH_TOOL_NAME };
