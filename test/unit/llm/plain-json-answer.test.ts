import { beforeAll, describe, expect, it } from 'vitest';
import type { ProviderPreset } from '../../../src/core/model';
import { createLlmClient } from '../../../src/llm';
import { buildProvider, buildRequest, collectEvents, createStubFetch, summarizeEvents } from './replay';

const TEXT = 'The whole answer, in one body.';

/** What each API sends for a request made without "stream": true. */
const PLAIN_BODIES: { label: string; preset: ProviderPreset; api?: 'responses'; body: unknown }[] = [
  {
    label: 'OpenAI Chat Completions',
    preset: 'openai',
    body: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: TEXT }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    },
  },
  {
    label: 'an OpenAI-compatible local server',
    preset: 'ollama',
    body: {
      id: 'chatcmpl-2',
      object: 'chat.completion',
      created: 1,
      model: 'llama3.2',
      system_fingerprint: 'fp_ollama',
      choices: [{ index: 0, message: { role: 'assistant', content: TEXT }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    },
  },
  {
    label: 'OpenAI Responses',
    preset: 'openai',
    api: 'responses',
    body: {
      id: 'resp_1',
      object: 'response',
      created_at: 1,
      status: 'completed',
      model: 'gpt-4o',
      output: [
        {
          type: 'message',
          id: 'msg_1',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: TEXT, annotations: [] }],
        },
      ],
      usage: { input_tokens: 11, output_tokens: 7, total_tokens: 18 },
    },
  },
  {
    label: 'Anthropic',
    preset: 'anthropic',
    body: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: TEXT }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 11, output_tokens: 7 },
    },
  },
  {
    label: 'Gemini',
    preset: 'google',
    body: {
      candidates: [{ content: { role: 'model', parts: [{ text: TEXT }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 7, totalTokenCount: 18 },
    },
  },
];

function answerWith(body: unknown, preset: ProviderPreset, api?: 'responses') {
  const stub = createStubFetch(() => ({
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json; charset=utf-8' },
  }));
  const provider = buildProvider(preset, api === undefined ? {} : { api });
  const run = collectEvents(
    createLlmClient({ fetch: stub.fetch }).stream(buildRequest(provider), new AbortController().signal),
  );
  return { stub, run };
}

beforeAll(() => {
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
});

describe('a streaming request answered with one plain JSON body', () => {
  for (const { label, preset, api, body } of PLAIN_BODIES) {
    it(`is a complete answer from ${label}, read from the one request`, async () => {
      const { stub, run } = answerWith(body, preset, api);
      const summary = summarizeEvents(await run);
      expect(summary).toMatchObject({ text: TEXT, errors: [], finish: 'stop', finishCount: 1 });
      expect(summary.usage).toMatchObject({ inputTokens: 11, outputTokens: 7 });
      expect(stub.requests).toHaveLength(1);
    });
  }

  it('carries whole tool calls with their finish reason', async () => {
    const { run } = answerWith(
      {
        id: 'chatcmpl-3',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o-mini',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      },
      'openai',
    );
    const summary = summarizeEvents(await run);
    expect(summary.toolCalls).toEqual([{ id: 'call_1', name: 'weather', argumentsText: '{"city":"Oslo"}' }]);
    expect(summary.finish).toBe('tool-calls');
  });

  it('reports an error object sent with status 200 as that error', async () => {
    const { run } = answerWith({ error: { message: 'The server had an error.', type: 'server_error' } }, 'openai');
    const summary = summarizeEvents(await run);
    expect(summary.errors).toEqual(['server_error']);
    expect(summary.finish).toBe('error');
  });
});
