import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { toToolDefinition } from '../../../../src/core/agent/tools/tool';
import type { ConfirmationRequest } from '../../../../src/core/ports';
import {
  connectMcpServer,
  mcpSchemaValidator,
  testMcpServer,
  type McpConnection,
} from '../../../../src/workers/agent/mcp/mcp-client';
import {
  mcpServerConfigSchema,
  type McpServerConfig,
} from '../../../../src/workers/agent/mcp/mcp-server-config';
import {
  createMcpTools,
  toMcpToolName,
  toToolOutput,
  wrapMcpTool,
} from '../../../../src/workers/agent/mcp/mcp-tools';
import { createEmitter } from '../../../../src/core/agent/emitter';
import { executeToolCalls } from '../../../../src/core/agent/execute-tool-calls';
import { StateContainer } from '../../../../src/core/agent/state-container';
import type { Tool } from '../../../../src/core/agent/tools/tool';
import { renderNumberedDocuments } from '../../../../src/core/context';
import { startMockLlm } from '../../../mock-llm/server';
import { startMockWeb, type StartedMockWeb } from '../../../mock-llm/web/web-server';

let web: StartedMockWeb;
const open: McpConnection[] = [];
beforeAll(async () => {
  web = await startMockWeb();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((connection) => connection.close()));
  web.clear();
});
afterAll(() => web.close());

const signal = new AbortController().signal;

function serverConfig(overrides: Partial<McpServerConfig> = {}): McpServerConfig {
  return mcpServerConfigSchema.parse({
    id: 'srv-1',
    name: 'weather',
    url: `${web.url}/web/mcp`,
    headers: { Authorization: 'Bearer mcp-secret' },
    ...overrides,
  });
}

async function connect(config: McpServerConfig): Promise<McpConnection> {
  const connection = await connectMcpServer(config);
  open.push(connection);
  return connection;
}

/** Runs tool calls the way the agent loop does: arguments parsed and checked, then executed. */
function runCalls(tools: ReadonlyMap<string, Tool>, calls: Array<{ name: string; args: unknown }>) {
  return executeToolCalls(
    calls.map((call, i) => ({
      id: `call-${i}`,
      name: call.name,
      argumentsText: JSON.stringify(call.args),
    })),
    tools,
    {
      signal: new AbortController().signal,
      nextDocumentNumber: 1,
      tokens: { count: (text) => Math.ceil(text.length / 4) },
      emitter: createEmitter(0, () => undefined),
      state: new StateContainer(0),
      turnIndex: 0,
      renderDocuments: renderNumberedDocuments,
    },
  );
}

/** A connection that must never be used: the tests that take it stop before any call. */
function stubConnection(): McpConnection {
  const unused = () => Promise.reject(new Error('not used'));
  return {
    config: serverConfig(),
    serverName: 'stub',
    listTools: unused,
    callTool: unused,
    close: () => Promise.resolve(),
  };
}

function recordingConfirmation(answer: boolean) {
  const asked: ConfirmationRequest[] = [];
  return {
    asked,
    requestConfirmation(request: ConfirmationRequest) {
      asked.push(request);
      return Promise.resolve(answer);
    },
  };
}

describe('MCP servers as tools', () => {
  it('connects over Streamable HTTP with the auth header and lists the tools', async () => {
    const connection = await connect(serverConfig());
    expect(connection.serverName).toBe('carrel-mock-mcp');
    expect((await connection.listTools()).map((tool) => tool.name)).toEqual([
      'get_forecast',
      'add',
      'always_fails',
    ]);
    expect(
      web
        .requests()
        .every((r) => r.method === 'OPTIONS' || r.headers.authorization === 'Bearer mcp-secret'),
    ).toBe(true);
  });

  it('offers only the tools the agent enabled, with the server JSON Schema as parameters', async () => {
    const connection = await connect(serverConfig());
    const confirmation = recordingConfirmation(true);
    const { tools } = await createMcpTools({
      connections: [connection],
      enabledTools: ['mcp__weather__get_forecast'],
      confirmation,
    });
    expect(tools.map((tool) => tool.name)).toEqual(['mcp__weather__get_forecast']);
    const definition = toToolDefinition(tools[0]!);
    expect(definition.inputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    });
    expect(tools[0]!.inputSchema.safeParse({ days: 3 }).success).toBe(false);
  });

  it('refuses bad arguments with what is wrong with each, and sends nothing to the server', async () => {
    const connection = await connect(serverConfig({ allowedTools: ['get_forecast'] }));
    const { tools } = await createMcpTools({
      connections: [connection],
      enabledTools: ['mcp:srv-1'],
      confirmation: recordingConfirmation(true),
    });
    const executed = await runCalls(new Map(tools.map((tool) => [tool.name, tool])), [
      { name: 'mcp__weather__get_forecast', args: { city: 3, days: 9 } },
      { name: 'mcp__weather__get_forecast', args: { days: 2 } },
      { name: 'mcp__weather__get_forecast', args: { city: 'Lyon', days: 2 } },
    ]);
    expect(executed.calls.map((call) => [call.status, call.result?.content])).toEqual([
      [
        'error',
        'Invalid arguments for mcp__weather__get_forecast: (root): city: Instance type "number" is invalid. Expected "string".; days: 9 is greater than 7.',
      ],
      [
        'error',
        'Invalid arguments for mcp__weather__get_forecast: (root): Instance does not have required property "city".',
      ],
      ['complete', 'Forecast for Lyon: sunny, 21 °C for 2 days.'],
    ]);
    expect(web.mcpCalls()).toEqual([
      { tool: 'get_forecast', arguments: { city: 'Lyon', days: 2 } },
    ]);
  });

  it('refuses every call to a tool whose schema cannot be resolved, rather than sending unchecked arguments', () => {
    const tool = wrapMcpTool(
      {
        name: 'lookup',
        description: 'Looks things up.',
        inputSchema: { type: 'object', properties: { q: { $ref: '#/$defs/missing' } } },
      },
      { connection: stubConnection(), confirmation: recordingConfirmation(true) },
    );
    const parsed = tool.inputSchema.safeParse({ q: 'anything' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(
      /^the server's schema could not be applied \(Unresolved \$ref "#\/\$defs\/missing"/,
    );
    expect(toToolDefinition(tool).inputSchema).toEqual({
      type: 'object',
      properties: { q: { $ref: '#/$defs/missing' } },
    });
  });

  it('enables every tool of a server with mcp:<server id>', async () => {
    const connection = await connect(serverConfig());
    const { tools } = await createMcpTools({
      connections: [connection],
      enabledTools: ['mcp:srv-1'],
      confirmation: recordingConfirmation(true),
    });
    expect(tools).toHaveLength(3);
  });

  it('asks before running a tool the user has not allowed, then runs it', async () => {
    const connection = await connect(serverConfig());
    const confirmation = recordingConfirmation(true);
    const { tools } = await createMcpTools({
      connections: [connection],
      enabledTools: ['mcp:srv-1'],
      confirmation,
    });
    const forecast = tools.find((tool) => tool.name === 'mcp__weather__get_forecast')!;
    const output = await forecast.execute({ city: 'Lyon', days: 2 }, { signal });
    expect(confirmation.asked).toEqual([
      {
        kind: 'mcp_tool',
        toolName: 'mcp__weather__get_forecast',
        reason: expect.stringContaining('"get_forecast" on the MCP server "weather"') as string,
      },
    ]);
    expect(output).toEqual({
      kind: 'text',
      content: 'Forecast for Lyon: sunny, 21 °C for 2 days.',
      isError: false,
    });
    expect(web.mcpCalls()).toEqual([
      { tool: 'get_forecast', arguments: { city: 'Lyon', days: 2 } },
    ]);
  });

  it('does not run the tool when the user says no, and tells the model', async () => {
    const connection = await connect(serverConfig());
    const { tools } = await createMcpTools({
      connections: [connection],
      enabledTools: ['mcp:srv-1'],
      confirmation: recordingConfirmation(false),
    });
    const add = tools.find((tool) => tool.name === 'mcp__weather__add')!;
    const output = await add.execute({ a: 1, b: 2 }, { signal });
    expect(output).toMatchObject({
      kind: 'text',
      isError: true,
      content: expect.stringMatching(/did not allow/) as string,
    });
    expect(web.mcpCalls()).toEqual([]);
  });

  it('runs an allowed tool without asking and passes a tool error on as an error result', async () => {
    const connection = await connect(serverConfig({ allowedTools: ['add', 'always_fails'] }));
    const confirmation = recordingConfirmation(false);
    const { tools } = await createMcpTools({
      connections: [connection],
      enabledTools: ['mcp:srv-1'],
      confirmation,
    });
    expect(
      await tools.find((t) => t.name === 'mcp__weather__add')!.execute({ a: 2, b: 3 }, { signal }),
    ).toEqual({
      kind: 'text',
      content: '5',
      isError: false,
    });
    expect(
      await tools.find((t) => t.name === 'mcp__weather__always_fails')!.execute({}, { signal }),
    ).toEqual({
      kind: 'text',
      content: 'The backend is down.',
      isError: true,
    });
    expect(confirmation.asked).toEqual([]);
  });

  it('reports a wrong auth header through the Test button result', async () => {
    const result = await testMcpServer(
      serverConfig({ headers: { Authorization: 'Bearer wrong' } }),
    );
    expect(result.ok).toBe(false);
    const good = await testMcpServer(serverConfig());
    expect(good).toEqual({
      ok: true,
      value: { serverName: 'carrel-mock-mcp', toolNames: ['get_forecast', 'add', 'always_fails'] },
    });
  });

  it('never connects to a cloud metadata endpoint or a reserved address, whatever was stored', async () => {
    const asked: string[] = [];
    const fetch = (input: string | URL): Promise<Response> => {
      asked.push(input.toString());
      return Promise.reject(new Error('no network in this test'));
    };
    for (const url of ['http://169.254.169.254/mcp', 'http://[fd00:ec2::254]/mcp', 'http://0.0.0.0:3001/mcp', 'http://224.0.0.1/mcp']) {
      // Stored settings pass the shape check (http, no credentials); the host is judged on connect.
      const config = mcpServerConfigSchema.parse({ id: 'x', name: 'x', url });
      const result = await testMcpServer(config, { fetch });
      expect(result.ok, url).toBe(false);
      expect(!result.ok && result.error.message, url).toMatch(/metadata endpoint|address/);
    }
    expect(asked).toEqual([]);
    // A server on the person's own network stays allowed.
    await expect(testMcpServer(serverConfig({ url: 'http://192.168.1.20:3001/mcp' }), { fetch })).resolves.toMatchObject({ ok: false });
    expect(asked.length).toBeGreaterThan(0);
  });

  it('refuses a server URL with credentials or a non-http scheme in the settings', () => {
    expect(
      mcpServerConfigSchema.safeParse({ id: 'x', name: 'x', url: 'https://u:p@mcp.example/mcp' })
        .success,
    ).toBe(false);
    expect(
      mcpServerConfigSchema.safeParse({ id: 'x', name: 'x', url: 'ws://mcp.example/mcp' }).success,
    ).toBe(false);
    expect(
      mcpServerConfigSchema.safeParse({ id: 'x', name: 'x', url: 'http://localhost:3001/mcp' })
        .success,
    ).toBe(true);
  });

  it('names tools within the providers limits', () => {
    expect(toMcpToolName('My Server!', 'get.items/v2')).toBe('mcp__My_Server__get_items_v2');
    expect(toMcpToolName('s', 'x'.repeat(100))).toHaveLength(64);
  });

  it('caps a huge result and describes content it cannot show', () => {
    const output = toToolOutput({
      content: [
        { type: 'text', text: 'a'.repeat(40_000) },
        { type: 'image', mimeType: 'image/png' },
      ],
      isError: false,
    });
    expect(output.kind === 'text' && output.content.length).toBeLessThan(30_100);
    expect(
      toToolOutput({ content: [{ type: 'image', mimeType: 'image/png' }], isError: false }),
    ).toMatchObject({
      content: '[image (image/png) not shown]',
    });
    expect(
      toToolOutput({ content: [], structuredContent: { t: 21 }, isError: false }),
    ).toMatchObject({ content: '{"t":21}' });
  });

  it('is served by the mock LLM server too, under /web/mcp', async () => {
    const mock = await startMockLlm();
    try {
      const result = await testMcpServer(serverConfig({ url: `${mock.url}/web/mcp` }));
      expect(result.ok && result.value.toolNames).toEqual(['get_forecast', 'add', 'always_fails']);
      expect(mock.web.requests().some((request) => request.path === '/web/mcp')).toBe(true);
    } finally {
      await mock.close();
    }
  });

  it('validates tool output schemas with the SDK validator that compiles nothing (no eval under the CSP)', () => {
    const validate = mcpSchemaValidator.getValidator<{ t: number }>({
      type: 'object',
      properties: { t: { type: 'number' } },
      required: ['t'],
    });
    expect(validate({ t: 21 })).toEqual({ valid: true, data: { t: 21 }, errorMessage: undefined });
    expect(validate({ t: 'warm' }).valid).toBe(false);
  });
});
