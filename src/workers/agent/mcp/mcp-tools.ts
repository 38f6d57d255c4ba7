import { z } from 'zod';
import type { Tool, ToolOutput } from '../../../core/agent/tools/tool';
import type { ConfirmationPort } from '../../../core/ports';
import { mcpSchemaValidator } from './mcp-client';
import type { McpCallResult, McpConnection, McpToolInfo } from './mcp-client';
import type { McpServerConfig } from './mcp-server-config';

/** Characters of one MCP result handed to the model at most (servers can return a lot). */
export const MAX_MCP_RESULT_CHARACTERS = 30_000;
/** Providers accept tool names of at most 64 characters from [a-zA-Z0-9_-]. */
const MAX_TOOL_NAME_LENGTH = 64;
export const MCP_TOOL_PREFIX = 'mcp__';

/**
 * The name the model sees: `mcp__<server>__<tool>`, so tools of two servers never clash and a
 * tool's origin is visible in the tool block.
 */
export function toMcpToolName(serverName: string, toolName: string): string {
  const clean = (text: string): string =>
    text.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '') || 'tool';
  return `${MCP_TOOL_PREFIX}${clean(serverName)}__${clean(toolName)}`.slice(
    0,
    MAX_TOOL_NAME_LENGTH,
  );
}

/**
 * Whether an agent offers an MCP tool: its `enabledTools` names the tool (`mcp__server__tool`)
 * or the whole server (`mcp:<server id>`).
 */
export function isMcpToolEnabled(
  enabledTools: readonly string[],
  server: McpServerConfig,
  qualifiedName: string,
): boolean {
  return enabledTools.includes(qualifiedName) || enabledTools.includes(`mcp:${server.id}`);
}

/**
 * The server's JSON Schema checks the arguments (with the MCP SDK's validator) before they
 * leave. A schema the validator cannot read refuses every call with that reason: arguments that
 * were never checked are not sent.
 */
function toInputSchema(
  toolName: string,
  jsonSchema: Record<string, unknown>,
): z.ZodType<Record<string, unknown>> {
  let validate: (input: unknown) => { valid: boolean; errorMessage?: string };
  try {
    validate = mcpSchemaValidator.getValidator<Record<string, unknown>>(
      jsonSchema,
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    validate = () => ({
      valid: false,
      errorMessage: `the server's schema for ${toolName} cannot be read (${reason}), so no call can be checked`,
    });
  }
  return z.record(z.string(), z.unknown()).superRefine((input, context) => {
    let result: { valid: boolean; errorMessage?: string };
    try {
      result = validate(input);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      result = {
        valid: false,
        errorMessage: `the server's schema could not be applied (${reason})`,
      };
    }
    if (!result.valid) {
      context.addIssue({ code: 'custom', message: describeSchemaErrors(result.errorMessage) });
    }
  });
}

/**
 * The validator's report (`#/days: 9 is greater than 7.; #: Property "days" does not match
 * schema.`) as the model should read it: each problem once, named by its argument.
 */
function describeSchemaErrors(report: string | undefined): string {
  const problems = (report ?? '').split('; ').filter((line) => line.trim() !== '');
  const specific = problems.filter((line) => !/ does not match schema\.$/.test(line));
  const lines = (specific.length > 0 ? specific : problems).map((line) =>
    line
      .replace(/^#\/([^:]*): /, (_match, path: string) => `${path.replaceAll('/', '.')}: `)
      .replace(/^#: /, ''),
  );
  return lines.length > 0 ? lines.join('; ') : 'the arguments do not match the schema';
}

/** The schema the model sees: the server's own, an object as providers require. */
function toModelSchema(jsonSchema: Record<string, unknown>): Record<string, unknown> {
  return { ...jsonSchema, type: 'object' };
}

export interface McpToolDeps {
  connection: McpConnection;
  confirmation: ConfirmationPort;
}

/**
 * One MCP tool as a Carrel `Tool`: same result path as the built-in tools (text the model
 * reads, capped), and a confirmation before it runs unless the user allowed it for this server.
 */
export function wrapMcpTool(info: McpToolInfo, deps: McpToolDeps): Tool<Record<string, unknown>> {
  const { connection, confirmation } = deps;
  const server = connection.config;
  const name = toMcpToolName(server.name, info.name);
  const description =
    info.description.trim() || `The ${info.name} tool of the ${server.name} MCP server.`;
  return {
    name,
    description,
    usage: `${description} (MCP server "${server.name}")`,
    isSearch: false,
    inputSchema: toInputSchema(info.name, info.inputSchema),
    inputJsonSchema: toModelSchema(info.inputSchema),
    async execute(input, { signal }) {
      if (!server.allowedTools.includes(info.name)) {
        const isConfirmed = await confirmation.requestConfirmation({
          kind: 'mcp_tool',
          toolName: name,
          reason: `The model wants to run "${info.name}" on the MCP server "${server.name}" with ${shorten(JSON.stringify(input), 300)}.`,
        });
        if (!isConfirmed) {
          return {
            kind: 'text',
            content: `The user did not allow running ${info.name} on ${server.name}. Do not call it again in this turn.`,
            isError: true,
          };
        }
      }
      const result = await connection.callTool(info.name, input, signal);
      return toToolOutput(result);
    },
  };
}

export function toToolOutput(result: McpCallResult): ToolOutput {
  const parts = result.content.map((item) => {
    switch (item.type) {
      case 'text':
        return item.text;
      case 'image':
      case 'audio':
        return `[${item.type} (${item.mimeType || 'unknown type'}) not shown]`;
      case 'resource':
        return item.text ?? `[resource ${item.uri}]`;
      case 'resource_link':
        return `[${item.name || 'link'}: ${item.uri}]`;
      case 'other':
        return `[${item.kind} content not shown]`;
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  const text = parts.join('\n').trim() || '(The tool returned nothing.)';
  const content =
    text.length > MAX_MCP_RESULT_CHARACTERS
      ? `${text.slice(0, MAX_MCP_RESULT_CHARACTERS)}\n[… cut at ${MAX_MCP_RESULT_CHARACTERS} characters]`
      : text;
  return { kind: 'text', content, isError: result.isError };
}

export interface McpToolsDeps {
  connections: readonly McpConnection[];
  /** The agent's `enabledTools`. */
  enabledTools: readonly string[];
  confirmation: ConfirmationPort;
  signal?: AbortSignal;
}

/**
 * The MCP tools an agent offers this turn, over open connections. A server that fails to list
 * its tools is skipped (its error is returned for the UI) so one broken server does not stop a
 * turn.
 */
export async function createMcpTools(
  deps: McpToolsDeps,
): Promise<{ tools: Tool[]; failures: Array<{ serverId: string; message: string }> }> {
  const tools: Tool[] = [];
  const failures: Array<{ serverId: string; message: string }> = [];
  for (const connection of deps.connections) {
    if (!connection.config.isEnabled) continue;
    try {
      for (const info of await connection.listTools(deps.signal)) {
        const tool = wrapMcpTool(info, { connection, confirmation: deps.confirmation });
        if (isMcpToolEnabled(deps.enabledTools, connection.config, tool.name)) tools.push(tool);
      }
    } catch (error) {
      failures.push({
        serverId: connection.config.id,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return { tools, failures };
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
