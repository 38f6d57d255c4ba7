import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { checkUrl } from '../../../core/agent/tools/url-policy';
import { err, ok, type Result } from '../../../util/result';
import type { McpServerConfig } from './mcp-server-config';

/** Tool listings are paged; this many pages at most (a server offering more is misbehaving). */
const MAX_TOOL_PAGES = 20;

export interface McpToolInfo {
  name: string;
  description: string;
  /** JSON Schema of the arguments, as the server declares it. */
  inputSchema: Record<string, unknown>;
}

export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; mimeType: string }
  | { type: 'resource'; uri: string; text?: string }
  | { type: 'resource_link'; uri: string; name: string }
  | { type: 'other'; kind: string };

export interface McpCallResult {
  content: McpContent[];
  structuredContent?: unknown;
  isError: boolean;
}

export interface McpConnection {
  readonly config: McpServerConfig;
  /** What the server calls itself (from initialize). */
  readonly serverName: string;
  listTools(signal?: AbortSignal): Promise<McpToolInfo[]>;
  callTool(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<McpCallResult>;
  close(): Promise<void>;
}

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * Connects to a remote MCP server over Streamable HTTP with the SDK's client, sending the
 * user's headers (the auth header) on every request. From a browser this works only if the
 * server answers CORS preflights, allows those headers and exposes `Mcp-Session-Id`.
 */
export async function connectMcpServer(
  config: McpServerConfig,
  options: { fetch?: FetchLike; signal?: AbortSignal } = {},
): Promise<McpConnection> {
  // A server the person added may be on their own network; a cloud metadata endpoint or a
  // reserved address is never one, whatever a backup or another device stored.
  const verdict = checkUrl(config.url, { shouldAllowPrivateNetwork: true });
  if (!verdict.isAllowed) throw new Error(verdict.reason);
  const transport = new StreamableHTTPClientTransport(new URL(verdict.url), {
    requestInit: { headers: { ...config.headers }, credentials: 'omit' },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const client = new Client(
    { name: 'carrel', version: '1.0.0' },
    { jsonSchemaValidator: mcpSchemaValidator },
  );
  await client.connect(transport, options.signal ? { signal: options.signal } : undefined);
  const serverName = client.getServerVersion()?.name ?? config.name;

  return {
    config,
    serverName,
    async listTools(signal) {
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_TOOL_PAGES; page++) {
        const listed = await client.listTools(
          cursor ? { cursor } : {},
          signal ? { signal } : undefined,
        );
        for (const tool of listed.tools) {
          tools.push({
            name: tool.name,
            description: tool.description ?? '',
            inputSchema: tool.inputSchema,
          });
        }
        cursor = listed.nextCursor;
        if (!cursor) break;
      }
      return tools;
    },
    async callTool(name, args, signal) {
      const result = await client.callTool({ name, arguments: args }, undefined, { signal });
      const content = Array.isArray(result.content)
        ? (result.content as unknown[]).map(toContent)
        : [];
      return {
        content,
        isError: result.isError === true,
        ...(result.structuredContent !== undefined
          ? { structuredContent: result.structuredContent }
          : {}),
      };
    },
    close: () => client.close(),
  };
}

/**
 * The MCP SDK's JSON Schema validator that compiles nothing (@cfworker/json-schema): the SDK's
 * default, Ajv, builds validators with `new Function`, which the app's CSP forbids. It checks
 * tools' arguments before they are sent and their structured output when it comes back.
 */
export const mcpSchemaValidator = new CfWorkerJsonSchemaValidator({ shortcircuit: false });

function toContent(raw: unknown): McpContent {
  const item = (raw ?? {}) as Record<string, unknown>;
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  switch (item.type) {
    case 'text':
      return { type: 'text', text: text(item.text) };
    case 'image':
    case 'audio':
      return { type: item.type, mimeType: text(item.mimeType) };
    case 'resource': {
      const resource = (item.resource ?? {}) as Record<string, unknown>;
      return {
        type: 'resource',
        uri: text(resource.uri),
        ...(typeof resource.text === 'string' ? { text: resource.text } : {}),
      };
    }
    case 'resource_link':
      return { type: 'resource_link', uri: text(item.uri), name: text(item.name) };
    default:
      return { type: 'other', kind: text(item.type) || 'unknown' };
  }
}

/** The settings screen's Test button: connects, lists the tools, disconnects. */
export async function testMcpServer(
  config: McpServerConfig,
  options: { fetch?: FetchLike; signal?: AbortSignal } = {},
): Promise<
  Result<{ serverName: string; toolNames: string[] }, { code: 'mcp_unreachable'; message: string }>
> {
  let connection: McpConnection | undefined;
  try {
    connection = await connectMcpServer(config, options);
    const tools = await connection.listTools(options.signal);
    return ok({ serverName: connection.serverName, toolNames: tools.map((tool) => tool.name) });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return err({
      code: 'mcp_unreachable',
      message: `Could not use the MCP server at ${config.url}: ${detail}. Check the URL and the auth header; from a browser the server must also allow CORS and expose Mcp-Session-Id.`,
    });
  } finally {
    await connection?.close().catch(() => undefined);
  }
}
