import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLlmClient } from '../../../src/llm';
import type { StreamSummary } from './replay';
import {
  FIXTURES_DIR,
  buildFixtureProvider,
  buildRequest,
  chunkBytes,
  collectEvents,
  createStubFetch,
  frameFixture,
  selectFixtureProvider,
  streamChunks,
  summarizeEvents,
} from './replay';

type Expectation = Partial<Omit<StreamSummary, 'finishCount'>>;

const WEATHER_TEXT =
  "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app.";
const GEMINI_THOUGHTS_START = "**Calculating the Days**\n\nI've determined the user's request";

/** What each recorded stream must normalise to; every fixture file needs an entry. */
const EXPECTATIONS: Record<string, Expectation> = {
  'openai-chat-text.sse': {
    text: WEATHER_TEXT,
    toolCalls: [],
    usage: { inputTokens: 14, outputTokens: 30, reasoningTokens: 0, cachedInputTokens: 0 },
    errors: [],
    finish: 'stop',
  },
  'openai-chat-parallel-tool-calls.sse': {
    text: '',
    toolCalls: [
      {
        id: 'call_JMW1whyEaYG438VE1OIflxA2',
        name: 'GetWeatherArgs',
        argumentsText: '{"city": "Edinburgh", "country": "GB", "units": "c"}',
      },
      {
        id: 'call_DNYTawLBoN8fj3KN6qU9N1Ou',
        name: 'get_stock_price',
        argumentsText: '{"ticker": "AAPL", "exchange": "NASDAQ"}',
      },
    ],
    usage: { inputTokens: 149, outputTokens: 60, reasoningTokens: 0, cachedInputTokens: 0 },
    errors: [],
    finish: 'tool-calls',
  },
  'openai-chat-length.sse': {
    text: '{"',
    usage: { inputTokens: 79, outputTokens: 1, reasoningTokens: 0, cachedInputTokens: 0 },
    errors: [],
    finish: 'length',
  },
  'openai-chat-reasoning-model-azure.chunks.txt': {
    text: 'Capital of Denmark.',
    reasoning: '',
    usage: { inputTokens: 15, outputTokens: 78, reasoningTokens: 64, cachedInputTokens: 0 },
    errors: [],
    finish: 'stop',
  },
  'openai-chat-midstream-error.sse': { text: '', errors: ['server_error'], finish: 'error' },
  'openai-responses-reasoning-function-call.chunks.txt': {
    text: '',
    reasoning:
      "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product.",
    reasoningEnds: 1,
    toolCalls: [
      {
        id: 'call_AB6AaRZ1FYZB2RwS6A5vbdqn',
        name: 'calculator',
        argumentsText: '{"a":12,"b":7,"op":"add"}',
      },
    ],
    usage: { inputTokens: 134, outputTokens: 28, reasoningTokens: 0, cachedInputTokens: 0 },
    errors: [],
    finish: 'tool-calls',
  },
  'openai-responses-midstream-error.chunks.txt': {
    text: '',
    errors: ['quota_exceeded'],
    finish: 'error',
  },
  // The three anthropic-sdk-python recordings lack the final blank line after message_stop:
  // the event is whole, so the answers are complete.
  'anthropic-text.sse': { text: 'Hello there!', errors: [], finish: 'stop' },
  'anthropic-tool-use.sse': {
    text: "I'll check the current weather in Paris for you.",
    toolCalls: [
      {
        id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
        name: 'get_weather',
        argumentsText: '{"location": "Paris"}',
      },
    ],
    errors: [],
    finish: 'tool-calls',
  },
  'anthropic-max-tokens-partial-tool-json.sse': {
    text: "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now.",
    toolCalls: [],
    errors: [],
    finish: 'length',
  },
  'anthropic-thinking.chunks.txt': {
    text: '925 ÷ 5 = 185',
    reasoning: 'The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185',
    reasoningEnds: 1,
    usage: { inputTokens: 69, outputTokens: 53, cachedInputTokens: 0 },
    errors: [],
    finish: 'stop',
  },
  'anthropic-tool-no-args.chunks.txt': {
    text: "I'll update the issue list for you.",
    toolCalls: [
      { id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', name: 'updateIssueList', argumentsText: '{}' },
    ],
    usage: { inputTokens: 565, outputTokens: 48, cachedInputTokens: 0 },
    errors: [],
    finish: 'tool-calls',
  },
  'anthropic-midstream-overloaded.sse': { text: 'Hello', errors: ['overloaded'], finish: 'error' },
  'gemini-text.sse': {
    text: 'The capital of Wyoming is **Cheyenne**.\n',
    usage: { inputTokens: 7, outputTokens: 10, reasoningTokens: 0, cachedInputTokens: 0 },
    errors: [],
    finish: 'stop',
  },
  'gemini-tool-call.chunks.txt': {
    text: '',
    // Gemini sends no call ids; the SDK makes one up.
    toolCalls: [
      {
        id: expect.any(String) as string,
        name: 'weather',
        argumentsText: '{"location":"San Francisco"}',
      },
    ],
    usage: { inputTokens: 29, outputTokens: 60, reasoningTokens: 45, cachedInputTokens: 0 },
    errors: [],
    finish: 'tool-calls',
  },
  'gemini-thinking-function-call.sse': {
    text: '',
    reasoningEnds: 1,
    toolCalls: [{ id: expect.any(String) as string, name: 'now', argumentsText: '{}' }],
    usage: { inputTokens: 38, outputTokens: 174, reasoningTokens: 168, cachedInputTokens: 0 },
    errors: [],
    finish: 'tool-calls',
  },
  'groq-tool-call.chunks.txt': {
    toolCalls: [{ id: 'tk85n1k4m', name: 'weather', argumentsText: '{}' }],
    usage: { inputTokens: 210, outputTokens: 15, reasoningTokens: 0, cachedInputTokens: 0 },
    errors: [],
    finish: 'tool-calls',
  },
  'xai-reasoning-tool-call.excerpt.chunks.txt': {
    reasoning: ' step.',
    reasoningEnds: 1,
    toolCalls: [
      { id: 'call_79382389', name: 'weather', argumentsText: '{"location":"San Francisco"}' },
    ],
    usage: { inputTokens: 307, outputTokens: 26, reasoningTokens: 227, cachedInputTokens: 306 },
    errors: [],
    finish: 'tool-calls',
  },
  'ollama-parallel-tool-calls.sse': {
    text: '',
    toolCalls: [
      { id: 'call_wteop8bt', name: 'run_command', argumentsText: '{"command":"ls"}' },
      { id: 'call_rk2xye1l', name: 'run_command', argumentsText: '{"command":"ls -l"}' },
    ],
    errors: [],
    finish: 'tool-calls',
  },
  'openai-compatible-tool-call-index1.sse': {
    text: 'Reading it.',
    toolCalls: [{ id: 'toolu_sanitized', name: 'read_file', argumentsText: '{"path": "a.txt"}' }],
    errors: [],
    finish: 'tool-calls',
  },
  // Cached input tokens as each provider reports them, next to reasoning tokens.
  'openai-responses-cached-reasoning-usage.chunks.txt': {
    usage: { inputTokens: 7112, outputTokens: 463, reasoningTokens: 64, cachedInputTokens: 3072 },
    errors: [],
    finish: 'stop',
  },
  'anthropic-prompt-cache-read.chunks.txt': {
    text: 'The sum of the squares of the numbers 1 through 12 is **650**.',
    usage: { inputTokens: 9632, outputTokens: 198, cachedInputTokens: 6289 },
    errors: [],
    finish: 'stop',
  },
  // A usage chunk alone: the counts arrive, but without a finish reason the stream is cut off.
  // Input counts the prompt and the tool-use prompt (12 + 65); output counts the thoughts.
  'gemini-usage-cached-thoughts.sse': {
    usage: { inputTokens: 77, outputTokens: 160, reasoningTokens: 89, cachedInputTokens: 4 },
    finish: 'interrupted',
  },
  // Keep-alive comments are skipped; the recording stops before any finish chunk.
  'openrouter-keepalive-comments.sse': { text: '亚', errors: [], finish: 'interrupted' },
};

const STREAM_FIXTURES = readdirSync(FIXTURES_DIR).filter(
  (file) => file.endsWith('.sse') || file.endsWith('.chunks.txt'),
);

beforeAll(() => {
  // The SDK warns about unknown model ids on the console; the test model id is made up.
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
});

async function replay(file: string, split: 'whole' | number): Promise<StreamSummary> {
  const { wire } = selectFixtureProvider(file);
  const bytes = new TextEncoder().encode(frameFixture(file, wire));
  const chunks = split === 'whole' ? [bytes] : chunkBytes(bytes, split);
  const stub = createStubFetch([{ body: streamChunks(chunks) }]);
  const client = createLlmClient({ fetch: stub.fetch });
  const events = await collectEvents(
    client.stream(buildRequest(buildFixtureProvider(file)), new AbortController().signal),
  );
  return summarizeEvents(events);
}

describe('replaying recorded provider streams', () => {
  it('has a written expectation for every stream fixture', () => {
    expect(STREAM_FIXTURES.length).toBeGreaterThan(20);
    expect(Object.keys(EXPECTATIONS).sort()).toEqual([...STREAM_FIXTURES].sort());
  });

  for (const file of STREAM_FIXTURES) {
    const expectation = EXPECTATIONS[file] ?? {};
    for (const split of ['whole', 1, 2, 3] as const) {
      const label = split === 'whole' ? 'in one piece' : `split at random bytes (seed ${split})`;
      it(`normalises ${file} ${label} into its expected events with exactly one finish`, async () => {
        const summary = await replay(file, split);
        expect(summary).toMatchObject(expectation);
        expect(summary.finishCount).toBe(1);
      });
    }
  }

  it('splits fixtures inside CRLF and inside multi-byte characters', () => {
    const crlf = new TextEncoder().encode(
      frameFixture('gemini-thinking-function-call.sse', 'google'),
    );
    const crlfCuts = chunkBytes(crlf, 1).map((chunk) => chunk[chunk.length - 1]);
    expect(crlfCuts).toContain(0x0d);
    const utf8 = new TextEncoder().encode(
      frameFixture('openrouter-keepalive-comments.sse', 'openai-compatible'),
    );
    const utf8Ends = chunkBytes(utf8, 1).map((chunk) => chunk[chunk.length - 1] ?? 0);
    expect(utf8Ends.some((byte) => byte >= 0xc0)).toBe(true);
  });

  it('passes the Gemini thought signature on with the function call and its thoughts as reasoning', async () => {
    const file = 'gemini-thinking-function-call.sse';
    const stub = createStubFetch([{ body: frameFixture(file, 'google') }]);
    const events = await collectEvents(
      createLlmClient({ fetch: stub.fetch }).stream(
        buildRequest(buildFixtureProvider(file), {
          tools: [
            {
              name: 'now',
              description: 'Current time',
              inputSchema: { type: 'object', properties: {} },
            },
          ],
        }),
        new AbortController().signal,
      ),
    );
    const summary = summarizeEvents(events);
    expect(summary.reasoning.startsWith(GEMINI_THOUGHTS_START)).toBe(true);
    expect(summary.toolCalls).toEqual([
      { id: expect.any(String) as string, name: 'now', argumentsText: '{}' },
    ]);
    expect(summary.usage).toMatchObject({
      inputTokens: 38,
      outputTokens: 174,
      reasoningTokens: 168,
    });
    expect(summary.finish).toBe('tool-calls');
    const call = events.find((event) => event.type === 'tool-call-end');
    expect(call).toMatchObject({
      providerState: { google: { thoughtSignature: expect.stringMatching(/^CiIBVKhc/) as string } },
    });
  });

  it('keeps the Anthropic thinking signature on reasoning-end', async () => {
    const file = 'anthropic-thinking.chunks.txt';
    const stub = createStubFetch([{ body: frameFixture(file, 'anthropic') }]);
    const events = await collectEvents(
      createLlmClient({ fetch: stub.fetch }).stream(
        buildRequest(buildFixtureProvider(file)),
        new AbortController().signal,
      ),
    );
    expect(events.find((event) => event.type === 'reasoning-end')).toEqual({
      type: 'reasoning-end',
      providerState: {
        anthropic: { signature: expect.stringMatching(/^EvQBCkYICxgCKkAxhD4N/) as string },
      },
    });
  });

  it('keeps the OpenAI encrypted reasoning on reasoning-end (Responses API)', async () => {
    const file = 'openai-responses-reasoning-function-call.chunks.txt';
    const stub = createStubFetch([{ body: frameFixture(file, 'openai-responses') }]);
    const events = await collectEvents(
      createLlmClient({ fetch: stub.fetch }).stream(
        buildRequest(buildFixtureProvider(file)),
        new AbortController().signal,
      ),
    );
    expect(stub.requests[0]?.url).toBe('https://api.openai.com/v1/responses');
    expect(events.find((event) => event.type === 'reasoning-end')).toMatchObject({
      providerState: {
        openai: {
          itemId: 'rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9',
          reasoningEncryptedContent: expect.stringMatching(/^gAAAAABpPDIV/) as string,
        },
      },
    });
  });
  it('calls an Anthropic stream complete exactly when its message_stop event arrived whole', async () => {
    const file = 'anthropic-text.sse';
    const full = `${frameFixture(file, 'anthropic')}\n\n`;
    const stopEnd = full.lastIndexOf('}') + 1;
    const provider = buildFixtureProvider(file);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: full.indexOf('message_stop'), max: full.length }),
        fc.constantFrom('\n', '\r\n'),
        async (cut, lineEnd) => {
          const body = full.slice(0, cut).replace(/\n/g, lineEnd);
          const stub = createStubFetch([{ body }]);
          const events = await collectEvents(
            createLlmClient({ fetch: stub.fetch }).stream(
              buildRequest(provider),
              new AbortController().signal,
            ),
          );
          const summary = summarizeEvents(events);
          expect(summary.text).toBe('Hello there!');
          expect(summary.finish).toBe(cut >= stopEnd ? 'stop' : 'interrupted');
        },
      ),
      { numRuns: 60 },
    );
  });
});
