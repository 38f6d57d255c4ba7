// A fake MCP server over Streamable HTTP, built with the SDK's own server classes (stateless:
// a fresh server and transport per request, as the SDK's stateless example does).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export const MOCK_MCP_SERVER_NAME = 'carrel-mock-mcp';

export interface McpCallRecord {
  tool: string;
  arguments: unknown;
}

function buildServer(calls: McpCallRecord[]): McpServer {
  const server = new McpServer({ name: MOCK_MCP_SERVER_NAME, version: '1.0.0' });
  server.registerTool(
    'get_forecast',
    {
      description: 'Weather forecast for a city.',
      inputSchema: {
        city: z.string().describe('City name'),
        days: z.number().int().min(1).max(7).optional(),
      },
    },
    ({ city, days }) => {
      calls.push({ tool: 'get_forecast', arguments: { city, days } });
      return {
        content: [
          {
            type: 'text',
            text: `Forecast for ${city}: sunny, 21 °C${days ? ` for ${days} days` : ''}.`,
          },
        ],
      };
    },
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() } },
    ({ a, b }) => {
      calls.push({ tool: 'add', arguments: { a, b } });
      return { content: [{ type: 'text', text: String(a + b) }] };
    },
  );
  server.registerTool('always_fails', { description: 'Fails on purpose.', inputSchema: {} }, () => {
    calls.push({ tool: 'always_fails', arguments: {} });
    return { content: [{ type: 'text', text: 'The backend is down.' }], isError: true };
  });
  return server;
}

/** Answers one MCP request; `body` is the already-read JSON body (undefined for GET/DELETE). */
export async function handleMcpRequest(
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  calls: McpCallRecord[],
): Promise<void> {
  const server = buildServer(calls);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
