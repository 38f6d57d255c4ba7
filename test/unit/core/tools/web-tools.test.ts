import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmitter } from '../../../../src/core/agent/emitter';
import { runLlmLoop } from '../../../../src/core/agent/run-llm-loop';
import { StateContainer } from '../../../../src/core/agent/state-container';
import type { Tool } from '../../../../src/core/agent/tools/tool';
import { NO_RESULTS_NOTICE } from '../../../../src/core/agent/tools/web-search.tool';
import { webToolSettingsSchema } from '../../../../src/core/agent/tools/web-tool-settings';
import { collectConversationTexts, createWebTools } from '../../../../src/core/agent/tools/web-tools';
import { assembleContext, renderNumberedDocuments } from '../../../../src/core/context';
import { OPEN_RESULTS_REMINDER } from '../../../../src/core/context/parts/reminder.part';
import type { ChatMessageSimple, ProviderConfig } from '../../../../src/core/model';
import { asProviderId } from '../../../../src/core/model';
import { createTokenCounter } from '../../../../src/core/tokens';
import type { TokenCounter } from '../../../../src/core/ports';
import { createHttpFetcher } from '../../../../src/workers/agent/http-fetcher';
import { createReadableTextExtractor } from '../../../../src/workers/agent/readable-text';
import { buildFrozenClock } from '../../../builders/clock';
import { buildAgent, buildModelInfo, buildUserMessage } from '../../../builders/messages';
import { ScriptedLlmClient, scripts } from '../../../fakes/scripted-llm-client';
import { startMockWeb, type StartedMockWeb } from '../../../mock-llm/web/web-server';

let web: StartedMockWeb;
let tokens: TokenCounter;
beforeAll(async () => {
  web = await startMockWeb();
  tokens = await createTokenCounter();
});
afterAll(() => web.close());

const PROVIDER: ProviderConfig = {
  id: asProviderId('p'),
  name: 'P',
  kind: 'openai-compatible',
  preset: 'custom',
  baseUrl: 'http://127.0.0.1:9/v1',
  apiKey: 'sk-test',
  headers: {},
  models: ['gpt-4o'],
  contextWindowOverrides: {},
  createdAt: 1,
  updatedAt: 1,
};

/** Runs one turn of the real loop and context engine with the web tools over the fake web. */
async function runTurn(llm: ScriptedLlmClient, question: string) {
  const chain: ChatMessageSimple[] = [buildUserMessage({ text: question })];
  const tools: Tool[] = createWebTools({
    http: createHttpFetcher(),
    extractor: createReadableTextExtractor(),
    confirmation: { requestConfirmation: () => Promise.resolve(false) },
    settings: webToolSettingsSchema.parse({
      search: { kind: 'tavily', apiKey: 'tvly-test', baseUrl: `${web.url}/web/tavily` },
      shouldAllowPrivateNetwork: true,
    }),
    conversationTexts: collectConversationTexts(chain),
  });
  const state = new StateContainer(0);
  const clock = buildFrozenClock();
  const outcome = await runLlmLoop(
    {
      request: { provider: PROVIDER, modelId: 'gpt-4o' },
      tools,
      signal: new AbortController().signal,
    },
    {
      llm,
      clock,
      tokens,
      renderDocuments: renderNumberedDocuments,
      assemble: (cycle) => {
        const result = assembleContext({
          chain,
          turnSteps: cycle.turnSteps,
          agent: buildAgent(),
          project: null,
          systemPromptOverride: null,
          tools: cycle.tools.map((definition) => {
            const tool = tools.find((t) => t.name === definition.name);
            return {
              ...definition,
              ...(tool ? { usage: tool.usage, isSearch: tool.isSearch } : {}),
            };
          }),
          hasSearchRunInTurn: cycle.hasSearchRun,
          isLastCycle: cycle.isLastCycle,
          model: buildModelInfo(),
          providerKind: 'openai-compatible',
          clock,
          tokenCounter: tokens,
        });
        if (!result.ok)
          return { ok: false, error: { code: result.error.code, message: result.error.message } };
        return {
          ok: true,
          value: {
            messages: result.value.messages.map((m) => m.message),
            nextDocumentNumber: result.value.nextDocumentNumber,
          },
        };
      },
    },
    createEmitter(0, () => undefined),
    state,
  );
  const calls = state.steps.flatMap((step) => step.toolCalls);
  return { outcome, calls, state };
}

describe('web_search and open_url in the agent loop', () => {
  it('searches, opens two pages keeping their search citation numbers, then answers', async () => {
    const llama = `${web.url}/web/pages/llamas`;
    const alpaca = `${web.url}/web/pages/alpacas`;
    const llm = new ScriptedLlmClient().enqueue([
      scripts.toolCalls([{ id: 'c1', name: 'web_search', args: { query: 'llama lifespan' } }]),
      scripts.toolCalls([{ id: 'c2', name: 'open_url', args: { urls: [alpaca, llama] } }]),
      scripts.text('Llamas live 15 to 25 years [1], alpacas about 20 [2].'),
    ]);
    const { outcome, calls } = await runTurn(llm, 'How long do llamas live?');

    expect(outcome.stopReason).toBe('completed');
    expect(calls[0]?.result?.documents?.map((d) => [d.number, d.url])).toEqual([
      [1, llama],
      [2, alpaca],
      [3, `${web.url}/web/pages/notes.txt`],
    ]);
    expect(calls[0]?.result?.content).toContain(`"metadata":"URL: ${llama}"`);
    // Opened pages keep the numbers the search gave them.
    expect(calls[1]?.result?.documents?.map((d) => [d.number, d.url])).toEqual([
      [2, alpaca],
      [1, llama],
    ]);
    expect(calls[1]?.result?.content).toContain('Their fleece is shorn once a year');

    const reminderOf = (index: number) =>
      JSON.stringify(llm.requests[index]?.messages.at(-1)?.content);
    expect(reminderOf(1)).toContain(OPEN_RESULTS_REMINDER);
    expect(reminderOf(2)).not.toContain(OPEN_RESULTS_REMINDER);
    expect(reminderOf(2)).toContain('Cite the documents');
  });

  it('tells the model not to search again when nothing was found', async () => {
    const llm = new ScriptedLlmClient().enqueue([
      scripts.toolCalls([{ id: 'c1', name: 'web_search', args: { query: 'nothing at all' } }]),
      scripts.text('The search found nothing.'),
    ]);
    const { calls } = await runTurn(llm, 'Find nothing');
    expect(calls[0]?.result).toMatchObject({ content: NO_RESULTS_NOTICE, isError: false });
    expect(JSON.stringify(llm.requests[1]?.messages.at(-1)?.content)).not.toContain(
      OPEN_RESULTS_REMINDER,
    );
  });

  it('numbers new pages after the documents already cited in the turn', async () => {
    const llm = new ScriptedLlmClient().enqueue([
      scripts.toolCalls([
        { id: 'c1', name: 'web_search', args: { query: 'llamas', max_results: 1 } },
      ]),
      scripts.toolCalls([
        { id: 'c2', name: 'open_url', args: { urls: [`${web.url}/web/pages/alpacas`] } },
      ]),
      scripts.text('Done [2].'),
    ]);
    const { calls } = await runTurn(llm, 'Tell me about llamas and alpacas');
    expect(calls[1]?.result?.documents?.map((d) => d.number)).toEqual([2]);
  });

  it('offers web_search only when a search service is configured', () => {
    const base = {
      http: createHttpFetcher(),
      extractor: createReadableTextExtractor(),
      confirmation: { requestConfirmation: () => Promise.resolve(false) },
      conversationTexts: [],
    };
    expect(
      createWebTools({ ...base, settings: webToolSettingsSchema.parse({}) }).map((t) => t.name),
    ).toEqual(['open_url']);
  });
});
