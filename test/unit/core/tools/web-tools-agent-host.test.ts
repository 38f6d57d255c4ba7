import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webToolSettingsSchema } from '../../../../src/core/agent/tools/web-tool-settings';
import { collectConversationTexts, createWebTools } from '../../../../src/core/agent/tools/web-tools';
import { answerText } from '../../../../src/core/model';
import type { ConfirmationRequest } from '../../../../src/core/ports';
import { createHttpFetcher } from '../../../../src/workers/agent/http-fetcher';
import { connectMcpServer } from '../../../../src/workers/agent/mcp/mcp-client';
import { mcpServerConfigSchema } from '../../../../src/workers/agent/mcp/mcp-server-config';
import { wrapMcpTool } from '../../../../src/workers/agent/mcp/mcp-tools';
import { createReadableTextExtractor } from '../../../../src/workers/agent/readable-text';
import { buildUserMessage } from '../../../builders/messages';
import { scripts } from '../../../fakes/scripted-llm-client';
import { TestAgent } from '../../../fakes/test-agent';
import { startMockWeb, type StartedMockWeb } from '../../../mock-llm/web/web-server';

/** The end-to-end story, driven through the real agent host with the TestAgent. */
let web: StartedMockWeb;
beforeAll(async () => {
  web = await startMockWeb();
});
afterAll(() => web.close());

function webTools(question: string, shouldAllowPrivateNetwork = true) {
  return createWebTools({
    http: createHttpFetcher(),
    extractor: createReadableTextExtractor(),
    confirmation: { requestConfirmation: () => Promise.resolve(false) },
    settings: webToolSettingsSchema.parse({
      search: { kind: 'searxng', baseUrl: `${web.url}/web/searxng` },
      shouldAllowPrivateNetwork,
    }),
    conversationTexts: collectConversationTexts([buildUserMessage({ text: question })]),
  });
}

describe('web tools through the agent host', () => {
  it('searches, opens two pages and answers citing them; the tool results are saved', async () => {
    const question = 'How long do llamas and alpacas live?';
    const agent = await TestAgent.create({ tools: webTools(question) });
    const pages = [`${web.url}/web/pages/llamas`, `${web.url}/web/pages/alpacas`];
    const turn = await agent
      .script(
        scripts.toolCalls([
          { id: 's1', name: 'web_search', args: { query: 'llama alpaca lifespan' } },
        ]),
        scripts.toolCalls([{ id: 'o1', name: 'open_url', args: { urls: pages } }]),
        scripts.text('Llamas live 15 to 25 years [1]; alpacas about 20 [2].'),
      )
      .send(question);

    const [answer] = turn.answers;
    expect(answer?.status).toBe('complete');
    expect(answer && answerText(answer)).toContain('[1]');
    const calls = answer?.steps.flatMap((step) => step.toolCalls) ?? [];
    expect(calls.map((call) => [call.name, call.status])).toEqual([
      ['web_search', 'complete'],
      ['open_url', 'complete'],
    ]);
    expect(calls[1]?.result?.documents).toEqual([
      { number: 1, title: 'Llamas of the Andes', url: pages[0] },
      { number: 2, title: 'Alpaca care guide', url: pages[1] },
    ]);
    const system = JSON.stringify(agent.llm.requests[0]?.messages[0]);
    expect(system).toContain('web_search');
    expect(system).toContain('open_url');
    expect(agent.llm.requests[0]?.tools.map((tool) => tool.name)).toEqual([
      'web_search',
      'open_url',
    ]);
  });

  it('refuses a disallowed URL with a tool result that says why', async () => {
    const agent = await TestAgent.create({ tools: webTools('open my router', false) });
    const turn = await agent
      .script(
        scripts.toolCalls([
          { id: 'o1', name: 'open_url', args: { urls: ['http://192.168.1.1/admin'] } },
        ]),
        scripts.text('I cannot open private addresses.'),
      )
      .send('open my router');
    const call = turn.answers[0]?.steps[0]?.toolCalls[0];
    expect(call?.status).toBe('error');
    expect(call?.result?.content).toMatch(/192\.168\.1\.1 is a private network address/);
    const toolResultPacket = turn.packets.find((packet) => packet.obj.type === 'tool_result');
    expect(toolResultPacket?.obj).toMatchObject({ status: 'error' });
  });

  it('asks before an MCP tool runs, then runs it', async () => {
    const asked: ConfirmationRequest[] = [];
    const connection = await connectMcpServer(
      mcpServerConfigSchema.parse({
        id: 'w',
        name: 'weather',
        url: `${web.url}/web/mcp`,
        headers: { Authorization: 'Bearer mcp-x' },
      }),
    );
    try {
      const infos = await connection.listTools();
      const tools = infos.map((info) =>
        wrapMcpTool(info, {
          connection,
          confirmation: {
            requestConfirmation: (request) => {
              asked.push(request);
              return Promise.resolve(true);
            },
          },
        }),
      );
      const agent = await TestAgent.create({ tools });
      const turn = await agent
        .script(
          scripts.toolCalls([
            { id: 'm1', name: 'mcp__weather__get_forecast', args: { city: 'Lyon' } },
          ]),
          scripts.text('Sunny in Lyon.'),
        )
        .send('Weather in Lyon?');
      expect(asked.map((request) => request.toolName)).toEqual(['mcp__weather__get_forecast']);
      expect(turn.answers[0]?.steps[0]?.toolCalls[0]?.result?.content).toBe(
        'Forecast for Lyon: sunny, 21 °C.',
      );
    } finally {
      await connection.close();
    }
  });
});
