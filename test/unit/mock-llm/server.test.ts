import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resolveFixturesDir } from '../../mock-llm/fixtures';
import { startMockLlm } from '../../mock-llm/server';
import type { MockLlm, RecordedRequest } from '../../mock-llm/server';
import { parseSse, sseJson } from './sse';

// ---------------------------------------------------------------------------------------
// Wire shapes the assertions read (only the fields the tests look at)

interface OpenAiToolCallDelta {
  index: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}
interface OpenAiChunk {
  choices: {
    delta: {
      role?: string;
      content?: string;
      reasoning_content?: string;
      tool_calls?: OpenAiToolCallDelta[];
    };
    finish_reason: string | null;
  }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  error?: { type: string; message: string };
}
interface AnthropicEvent {
  type: string;
  index?: number;
  content_block?: { type: string; id?: string; name?: string };
  delta?: {
    type?: string;
    text?: string;
    thinking?: string;
    signature?: string;
    partial_json?: string;
    stop_reason?: string;
  };
  usage?: { output_tokens: number };
  error?: { type: string };
}
interface GeminiPart {
  text?: string;
  thought?: boolean;
  functionCall?: { name: string; args: unknown };
}
interface GeminiResponse {
  candidates?: { content: { parts: GeminiPart[] }; finishReason?: string }[];
  usageMetadata?: {
    promptTokenCount: number;
    candidatesTokenCount?: number;
    totalTokenCount: number;
  };
  error?: { code: number; status: string };
}
interface CatalogueFile {
  errors: { id: string; status: number; body?: string }[];
}

// ---------------------------------------------------------------------------------------
// Request helpers

const OPENAI_HEADERS = {
  authorization: 'Bearer sk-openai-test',
  'content-type': 'application/json',
};
const ANTHROPIC_HEADERS = {
  'x-api-key': 'sk-ant-test',
  'anthropic-version': '2023-06-01',
  'content-type': 'application/json',
};
const GEMINI_HEADERS = { 'x-goog-api-key': 'test-gemini', 'content-type': 'application/json' };
const GEMINI_STREAM_PATH = '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';

const openAiBody = (
  text: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  model: 'gpt-4o-mini',
  stream: true,
  stream_options: { include_usage: true },
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: text },
  ],
  ...extra,
});
const anthropicBody = (text: string): Record<string, unknown> => ({
  model: 'claude-sonnet-4-5-20250929',
  max_tokens: 1024,
  stream: true,
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
});
const geminiBody = (text: string): Record<string, unknown> => ({
  contents: [{ role: 'user', parts: [{ text }] }],
});

let mock: MockLlm;

function post(
  path: string,
  body: unknown,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${mock.url}${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal,
  });
}

const postOpenAi = (
  body: unknown,
  headers: Record<string, string> = OPENAI_HEADERS,
): Promise<Response> => post('/v1/chat/completions', body, headers);
const postAnthropic = (
  body: unknown,
  headers: Record<string, string> = ANTHROPIC_HEADERS,
): Promise<Response> => post('/v1/messages', body, headers);
const postGemini = (
  body: unknown,
  path = GEMINI_STREAM_PATH,
  headers: Record<string, string> = GEMINI_HEADERS,
): Promise<Response> => post(path, body, headers);

const fixturesDir = resolveFixturesDir();
const readFixture = (file: string): Promise<Buffer> => readFile(join(fixturesDir, file));

async function catalogueBody(file: string, id: string): Promise<string> {
  const catalogue = JSON.parse(await readFile(join(fixturesDir, file), 'utf8')) as CatalogueFile;
  const body = catalogue.errors.find((entry) => entry.id === id)?.body;
  if (body === undefined) throw new Error(`no ${id} in ${file}`);
  return body;
}

function openAiText(chunks: OpenAiChunk[]): string {
  return chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
}

/** Reads the body until `needle` has arrived, leaving the stream open. */
async function readUntil(
  response: Response,
  needle: string,
): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  if (response.body === null) throw new Error('response has no body');
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let received = '';
  while (!received.includes(needle)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before ${needle}: ${received}`);
    received += decoder.decode(value, { stream: true });
  }
  return reader;
}

const llmRequests = (): RecordedRequest[] =>
  mock.requests().filter((r) => r.scenario !== undefined);

beforeAll(async () => {
  mock = await startMockLlm({ port: 0 });
});

afterAll(async () => {
  await mock.close();
});

beforeEach(() => {
  mock.reset();
});

// ---------------------------------------------------------------------------------------

describe('OpenAI chat completions', () => {
  it('streams scripted text as chat.completion.chunk deltas ending in [DONE]', async () => {
    mock.setScenario({ kind: 'text', text: 'Hello from the mock server!', chunkSize: 5 });
    const response = await postOpenAi(openAiBody('hi'));
    const body = await response.text();
    const chunks = sseJson<OpenAiChunk>(body);

    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(openAiText(chunks)).toBe('Hello from the mock server!');
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['stop']);
    expect(parseSse(body).at(-1)?.data).toBe('[DONE]');
  });

  it('sends a usage chunk with empty choices only when stream_options.include_usage is set', async () => {
    mock.setScenario({
      kind: 'text',
      text: 'counted',
      usage: { inputTokens: 11, outputTokens: 7 },
    });
    const withUsage = sseJson<OpenAiChunk>(await (await postOpenAi(openAiBody('a'))).text());
    const withoutUsage = sseJson<OpenAiChunk>(
      await (await postOpenAi(openAiBody('a', { stream_options: undefined }))).text(),
    );

    expect(withUsage.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    });
    expect(withoutUsage.some((chunk) => chunk.usage !== undefined)).toBe(false);
  });

  it('streams reasoning as reasoning_content deltas before the text', async () => {
    mock.setScenario({ kind: 'text', text: 'Answer.', reasoning: 'Let me think.' });
    const chunks = sseJson<OpenAiChunk>(await (await postOpenAi(openAiBody('why?'))).text());
    const reasoning = chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? '').join('');

    expect(reasoning).toBe('Let me think.');
    expect(openAiText(chunks)).toBe('Answer.');
  });

  it('answers stream:false with a whole chat.completion object', async () => {
    mock.setScenario({ kind: 'text', text: 'Not streamed.' });
    const response = await postOpenAi(openAiBody('hi', { stream: false }));

    expect(await response.json()).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-4o-mini',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Not streamed.' },
          finish_reason: 'stop',
        },
      ],
      usage: { total_tokens: expect.any(Number) as number },
    });
  });

  it('round-trips tool calls as indexed fragments: id and name first, then argument pieces', async () => {
    const args = { city: 'Zürich', days: [1, 2, 3] };
    mock.setScenario({
      kind: 'tool-calls',
      calls: [
        { id: 'call_weather', name: 'get_weather', arguments: args },
        { name: 'get_time', arguments: '{"tz":"CET"}' },
      ],
    });
    const chunks = sseJson<OpenAiChunk>(await (await postOpenAi(openAiBody('weather?'))).text());
    const fragments = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    const first = fragments.filter((f) => f.index === 0);
    const second = fragments.filter((f) => f.index === 1);
    const joinArgs = (list: OpenAiToolCallDelta[]): string =>
      list.map((f) => f.function?.arguments ?? '').join('');

    expect(first[0]).toEqual({
      index: 0,
      id: 'call_weather',
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
    });
    expect(first.length).toBeGreaterThan(2);
    expect(first.slice(1).every((f) => f.id === undefined && f.function?.name === undefined)).toBe(
      true,
    );
    expect(JSON.parse(joinArgs(first))).toEqual(args);
    expect(second[0]?.id).toMatch(/^call_/);
    expect(joinArgs(second)).toBe('{"tz":"CET"}');
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['tool_calls']);
  });

  it('lists models in the OpenAI list shape', async () => {
    const response = await fetch(`${mock.url}/v1/models`, {
      headers: { authorization: 'Bearer sk-x' },
    });

    expect(await response.json()).toMatchObject({
      object: 'list',
      data: expect.arrayContaining([
        {
          id: 'gpt-4o-mini',
          object: 'model',
          created: expect.any(Number) as number,
          owned_by: 'system',
        },
      ]) as unknown,
    });
  });
});

describe('Anthropic messages', () => {
  it('streams thinking and text as named events from message_start to message_stop', async () => {
    mock.setScenario({ kind: 'text', text: 'The answer is 42.', reasoning: 'Compute carefully.' });
    const response = await postAnthropic(anthropicBody('question'));
    const events = parseSse(await response.text());
    const payloads = events.map((e) => JSON.parse(e.data) as AnthropicEvent);
    const deltas = payloads.flatMap((p) => (p.delta === undefined ? [] : [p.delta]));

    expect(events.every((e, i) => e.event === payloads[i]?.type)).toBe(true);
    expect(payloads[0]?.type).toBe('message_start');
    expect(payloads.at(-1)?.type).toBe('message_stop');
    expect(
      payloads.filter((p) => p.type === 'content_block_start').map((p) => p.content_block?.type),
    ).toEqual(['thinking', 'text']);
    expect(deltas.map((d) => d.thinking ?? '').join('')).toBe('Compute carefully.');
    expect(deltas.filter((d) => d.type === 'signature_delta')).toHaveLength(1);
    expect(deltas.map((d) => d.text ?? '').join('')).toBe('The answer is 42.');
    expect(payloads.find((p) => p.type === 'message_delta')).toMatchObject({
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: expect.any(Number) as number },
    });
  });

  it('round-trips tool calls as tool_use blocks with input_json_delta pieces', async () => {
    const args = { query: 'mock servers', limit: 5 };
    mock.setScenario({
      kind: 'tool-calls',
      text: 'Searching.',
      calls: [{ id: 'toolu_1', name: 'search', arguments: args }],
    });
    const payloads = sseJson<AnthropicEvent>(
      await (await postAnthropic(anthropicBody('find'))).text(),
    );
    const toolStart = payloads.find((p) => p.content_block?.type === 'tool_use');
    const json = payloads
      .filter((p) => p.delta?.type === 'input_json_delta' && p.index === toolStart?.index)
      .map((p) => p.delta?.partial_json ?? '');

    expect(toolStart?.content_block).toEqual({
      type: 'tool_use',
      id: 'toolu_1',
      name: 'search',
      input: {},
    });
    expect(json.length).toBeGreaterThan(1);
    expect(JSON.parse(json.join(''))).toEqual(args);
    expect(payloads.find((p) => p.type === 'message_delta')?.delta?.stop_reason).toBe('tool_use');
  });

  it('tells Anthropic and OpenAI model-list requests apart by the Anthropic headers', async () => {
    const anthropic = await fetch(`${mock.url}/v1/models`, { headers: ANTHROPIC_HEADERS });
    const openai = await fetch(`${mock.url}/v1/models`, {
      headers: { authorization: 'Bearer sk-x' },
    });

    expect(await anthropic.json()).toMatchObject({
      data: expect.arrayContaining([
        {
          type: 'model',
          id: 'claude-sonnet-4-5-20250929',
          display_name: expect.any(String) as string,
          created_at: expect.any(String) as string,
        },
      ]) as unknown,
      has_more: false,
      first_id: 'claude-sonnet-4-5-20250929',
    });
    expect(await openai.json()).toMatchObject({ object: 'list' });
    expect(mock.requests().map((r) => r.provider)).toEqual(['anthropic', 'openai']);
  });
});

describe('Gemini generateContent', () => {
  it('streams thought parts then text with CRLF framing and finishReason STOP on the last chunk', async () => {
    mock.setScenario({ kind: 'text', text: 'Gemini says hi.', reasoning: 'Greeting.' });
    const response = await postGemini(geminiBody('hello'));
    const body = await response.text();
    const chunks = sseJson<GeminiResponse>(body);
    const parts = chunks.flatMap((c) => c.candidates?.[0]?.content.parts ?? []);

    expect(body.endsWith('\r\n\r\n')).toBe(true);
    expect(body.split('data: ').length - 1).toBe(chunks.length);
    expect(
      parts
        .filter((p) => p.thought === true)
        .map((p) => p.text)
        .join(''),
    ).toBe('Greeting.');
    expect(
      parts
        .filter((p) => p.thought !== true)
        .map((p) => p.text)
        .join(''),
    ).toBe('Gemini says hi.');
    expect(chunks.map((c) => c.candidates?.[0]?.finishReason).filter(Boolean)).toEqual(['STOP']);
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks.at(-1)?.usageMetadata?.candidatesTokenCount).toEqual(expect.any(Number));
  });

  it('round-trips tool calls as whole functionCall parts', async () => {
    mock.setScenario({
      kind: 'tool-calls',
      calls: [
        { name: 'lookup', arguments: { id: 7 } },
        { name: 'noop', arguments: {} },
      ],
    });
    const chunks = sseJson<GeminiResponse>(await (await postGemini(geminiBody('go'))).text());
    const calls = chunks
      .flatMap((c) => c.candidates?.[0]?.content.parts ?? [])
      .flatMap((p) => p.functionCall ?? []);

    expect(calls).toEqual([
      { name: 'lookup', args: { id: 7 } },
      { name: 'noop', args: {} },
    ]);
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
  });

  it('answers :generateContent with one whole response and accepts the key as ?key=', async () => {
    mock.setScenario({ kind: 'text', text: 'Whole.' });
    const response = await postGemini(
      geminiBody('hi'),
      '/v1beta/models/gemini-2.5-pro:generateContent?key=test-q',
      {
        'content-type': 'application/json',
      },
    );

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      candidates: [
        { content: { parts: [{ text: 'Whole.' }], role: 'model' }, finishReason: 'STOP' },
      ],
      modelVersion: 'gemini-2.5-pro',
    });
  });

  it('lists models with name, token limits and generation methods', async () => {
    const response = await fetch(`${mock.url}/v1beta/models?key=test-k`);

    expect(await response.json()).toMatchObject({
      models: expect.arrayContaining([
        expect.objectContaining({
          name: 'models/gemini-2.5-flash',
          inputTokenLimit: expect.any(Number) as number,
          outputTokenLimit: expect.any(Number) as number,
          supportedGenerationMethods: expect.arrayContaining(['generateContent']) as unknown,
        }),
      ]) as unknown,
    });
  });
});

describe('echo scenario', () => {
  it('quotes the last user message when nothing is scripted', async () => {
    const openai = sseJson<OpenAiChunk>(
      await (await postOpenAi(openAiBody('first question'))).text(),
    );
    const anthropic = sseJson<AnthropicEvent>(
      await (await postAnthropic(anthropicBody('second question'))).text(),
    );
    const gemini = sseJson<GeminiResponse>(
      await (await postGemini(geminiBody('third question'))).text(),
    );

    expect(openAiText(openai)).toBe('You said: first question');
    expect(anthropic.map((p) => p.delta?.text ?? '').join('')).toBe('You said: second question');
    expect(
      gemini
        .flatMap((c) => c.candidates?.[0]?.content.parts ?? [])
        .map((p) => p.text)
        .join(''),
    ).toBe('You said: third question');
  });
});

describe('replay scenario', () => {
  it('serves an .sse fixture byte for byte, also when written in small pieces', async () => {
    const expected = await readFixture('openai-chat-text.sse');
    mock.queueScenarios(
      { kind: 'replay', file: 'openai-chat-text.sse' },
      { kind: 'replay', file: 'anthropic-text.sse', chunkBytes: 97 },
    );
    const whole = Buffer.from(await (await postOpenAi(openAiBody('x'))).arrayBuffer());
    const pieces = Buffer.from(await (await postAnthropic(anthropicBody('x'))).arrayBuffer());

    expect(whole.equals(expected)).toBe(true);
    expect(pieces.equals(await readFixture('anthropic-text.sse'))).toBe(true);
  });

  it('frames OpenAI-style .chunks.txt lines as data: events followed by [DONE]', async () => {
    const lines = (await readFixture('groq-tool-call.chunks.txt'))
      .toString('utf8')
      .split('\n')
      .filter(Boolean);
    mock.setScenario({ kind: 'replay', file: 'groq-tool-call.chunks.txt' });
    const body = await (await postOpenAi(openAiBody('x'))).text();

    expect(body).toBe(lines.map((line) => `data: ${line}\n\n`).join('') + 'data: [DONE]\n\n');
  });

  it('frames Anthropic .chunks.txt lines as event: <type> plus data:', async () => {
    mock.setScenario({ kind: 'replay', file: 'anthropic-thinking.chunks.txt' });
    const lines = (await readFixture('anthropic-thinking.chunks.txt'))
      .toString('utf8')
      .split('\n')
      .filter(Boolean);
    const events = parseSse(await (await postAnthropic(anthropicBody('x'))).text());

    expect(events.map((e) => e.data)).toEqual(lines);
    expect(events.map((e) => e.event)).toEqual(
      lines.map((line) => (JSON.parse(line) as AnthropicEvent).type),
    );
  });

  it('frames Gemini .chunks.txt lines as data: events with CRLF', async () => {
    mock.setScenario({ kind: 'replay', file: 'gemini-tool-call.chunks.txt' });
    const lines = (await readFixture('gemini-tool-call.chunks.txt'))
      .toString('utf8')
      .split('\n')
      .filter(Boolean);
    const body = await (await postGemini(geminiBody('x'))).text();

    expect(body).toBe(lines.map((line) => `data: ${line}\r\n\r\n`).join(''));
  });

  it('answers a missing replay file with a readable 500', async () => {
    mock.setScenario({ kind: 'replay', file: 'no-such-file.sse' });
    const response = await postOpenAi(openAiBody('x'));

    expect(response.status).toBe(500);
    expect(await response.text()).toContain('no-such-file.sse');
  });
});

describe('authentication', () => {
  it('rejects a missing or wrong OpenAI key with 401 and the real error body', async () => {
    const expected = await catalogueBody('openai-error-bodies.json', 'openai-401-invalid-api-key');
    const missing = await postOpenAi(openAiBody('x'), { 'content-type': 'application/json' });
    const wrong = await postOpenAi(openAiBody('x'), {
      authorization: 'Bearer nope',
      'content-type': 'application/json',
    });

    expect(missing.status).toBe(401);
    expect(await missing.text()).toBe(expected);
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toBe(expected);
  });

  it('rejects a wrong Anthropic x-api-key with 401 invalid x-api-key', async () => {
    const response = await postAnthropic(anthropicBody('x'), {
      ...ANTHROPIC_HEADERS,
      'x-api-key': 'wrong',
    });

    expect(response.status).toBe(401);
    expect(await response.text()).toBe(
      await catalogueBody('anthropic-error-bodies.json', 'anthropic-401-invalid-x-api-key'),
    );
  });

  it('rejects a browser request to Anthropic without the direct-browser-access header', async () => {
    const browser = { ...ANTHROPIC_HEADERS, origin: 'http://localhost:5173' };
    const refused = await postAnthropic(anthropicBody('x'), browser);
    const allowed = await postAnthropic(anthropicBody('x'), {
      ...browser,
      'anthropic-dangerous-direct-browser-access': 'true',
    });

    expect(refused.status).toBe(401);
    expect(await refused.text()).toBe(
      await catalogueBody('anthropic-error-bodies.json', 'anthropic-401-cors-header-missing'),
    );
    expect(allowed.status).toBe(200);
    await allowed.text();
  });

  it('rejects a wrong Gemini key with 400 API_KEY_INVALID', async () => {
    const response = await postGemini(geminiBody('x'), GEMINI_STREAM_PATH, {
      'x-goog-api-key': 'AIza-wrong',
    });
    const body = await response.text();

    expect(response.status).toBe(400);
    expect(body).toBe(
      await catalogueBody('gemini-error-bodies.json', 'gemini-400-api-key-invalid'),
    );
    expect(body).toContain('API_KEY_INVALID');
  });

  it('does not consume a queued scenario when the key is rejected', async () => {
    mock.queueScenarios({ kind: 'text', text: 'kept for later' });
    await (await postOpenAi(openAiBody('x'), { 'content-type': 'application/json' })).text();
    const chunks = sseJson<OpenAiChunk>(await (await postOpenAi(openAiBody('x'))).text());

    expect(openAiText(chunks)).toBe('kept for later');
  });

  it('accepts only the configured keys when validKeys is given', async () => {
    const strict = await startMockLlm({ validKeys: ['sk-only-this'] });
    try {
      const call = (key: string): Promise<Response> =>
        fetch(`${strict.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      expect((await call('sk-only-this')).status).toBe(200);
      expect((await call('sk-other')).status).toBe(401);
    } finally {
      await strict.close();
    }
  });
});

describe('CORS', () => {
  it('answers preflights with the allowed origin, methods and the requested headers', async () => {
    const response = await fetch(`${mock.url}/v1/messages`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key,anthropic-version,content-type',
      },
    });

    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')).toBe(
      'x-api-key,anthropic-version,content-type',
    );
    expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(mock.requests()).toMatchObject([
      { method: 'OPTIONS', isPreflight: true, provider: 'anthropic' },
    ]);
  });

  it('puts allow-origin and expose-headers on every response, errors included', async () => {
    const responses = [
      await postOpenAi(openAiBody('x')),
      await postOpenAi(openAiBody('x'), { 'content-type': 'application/json' }),
      await fetch(`${mock.url}/__mock/state`),
      await fetch(`${mock.url}/nowhere`),
    ];

    for (const response of responses) {
      await response.text();
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-expose-headers')).toBe('*');
    }
  });
});

describe('error scenarios', () => {
  it('answers http-error with the catalogue body, its status and extra headers', async () => {
    mock.setScenario({
      kind: 'http-error',
      errorId: 'anthropic-429-rate-limit',
      headers: { 'retry-after': '3' },
    });
    const response = await postAnthropic(anthropicBody('x'));

    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(await response.text()).toBe(
      await catalogueBody('anthropic-error-bodies.json', 'anthropic-429-rate-limit'),
    );
  });

  it('serves catalogue entries whose body lives in a separate file', async () => {
    mock.setScenario({ kind: 'http-error', errorId: 'gemini-429-resource-exhausted' });
    const response = await postGemini(geminiBody('x'));

    expect(response.status).toBe(429);
    expect(await response.text()).toBe(
      (await readFixture('gemini-error-429-retry-info.json')).toString('utf8'),
    );
  });

  it('answers http-error with an explicit status and body', async () => {
    mock.setScenario({ kind: 'http-error', status: 503, body: 'upstream down' });
    const response = await postOpenAi(openAiBody('x'));

    expect(response.status).toBe(503);
    expect(await response.text()).toBe('upstream down');
  });

  it('ends an OpenAI stream with an error data line after the partial text', async () => {
    mock.setScenario({ kind: 'midstream-error', text: 'Partial answ' });
    const body = await (await postOpenAi(openAiBody('x'))).text();
    const chunks = sseJson<OpenAiChunk>(body);

    expect(openAiText(chunks.filter((c) => c.error === undefined))).toBe('Partial answ');
    expect(chunks.at(-1)?.error?.type).toBe('server_error');
    expect(chunks.some((c) => c.choices?.[0]?.finish_reason)).toBe(false);
  });

  it('ends an Anthropic stream with event: error and no message_stop', async () => {
    mock.setScenario({
      kind: 'midstream-error',
      text: 'Hello',
      errorId: 'anthropic-stream-overloaded',
    });
    const events = parseSse(await (await postAnthropic(anthropicBody('x'))).text());

    expect(events.at(-1)).toEqual({
      event: 'error',
      data: await catalogueBody('anthropic-error-bodies.json', 'anthropic-stream-overloaded'),
    });
    expect(events.some((e) => e.event === 'message_stop')).toBe(false);
  });

  it('ends a Gemini stream with a data line holding an error object', async () => {
    mock.setScenario({ kind: 'midstream-error', text: 'Some text' });
    const chunks = sseJson<GeminiResponse>(await (await postGemini(geminiBody('x'))).text());

    expect(chunks.at(-1)?.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
    expect(chunks.some((c) => c.candidates?.[0]?.finishReason !== undefined)).toBe(false);
  });
});

describe('hang scenario and client aborts', () => {
  it('keeps the stream open until the client aborts, then records closedByClient', async () => {
    mock.setScenario({ kind: 'hang', text: 'partial' });
    const controller = new AbortController();
    const response = await post(
      '/v1/chat/completions',
      openAiBody('x'),
      OPENAI_HEADERS,
      controller.signal,
    );
    await readUntil(response, '"ial"');

    expect(mock.openStreams()).toBe(1);
    controller.abort();
    await mock.waitForClosed(2_000);

    expect(mock.openStreams()).toBe(0);
    expect(llmRequests()).toMatchObject([
      { scenario: 'hang', closedByClient: true, completed: false },
    ]);
    expect(llmRequests()[0]?.endedAt).toEqual(expect.any(Number));
  });

  it('stops writing a paced stream when the client aborts midway', async () => {
    mock.setScenario({ kind: 'text', text: 'a'.repeat(400), chunkSize: 1, tokensPerSecond: 200 });
    const controller = new AbortController();
    const response = await post(
      '/v1/messages',
      anthropicBody('x'),
      ANTHROPIC_HEADERS,
      controller.signal,
    );
    await readUntil(response, 'text_delta');
    controller.abort();
    await mock.waitForClosed(2_000);

    expect(llmRequests()[0]).toMatchObject({ closedByClient: true, completed: false });
  });

  it('counts finished streams as completed, not closed by the client', async () => {
    mock.setScenario({ kind: 'text', text: 'done' });
    await (await postOpenAi(openAiBody('x'))).text();
    await mock.waitForRequest((r) => r.scenario !== undefined && r.endedAt !== undefined);

    expect(llmRequests()).toMatchObject([{ completed: true, closedByClient: false, status: 200 }]);
    expect(mock.openStreams()).toBe(0);
  });
});

describe('pacing', () => {
  it('spaces deltas by tokensPerSecond', async () => {
    mock.setScenario({ kind: 'text', text: 'abcdef', chunkSize: 1, tokensPerSecond: 100 });
    const started = performance.now();
    await (await postOpenAi(openAiBody('x'))).text();

    // 6 deltas plus role/finish/usage/[DONE] frames, 10 ms apart.
    expect(performance.now() - started).toBeGreaterThanOrEqual(60);
  });
});

describe('control HTTP API', () => {
  const control = (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${mock.url}/__mock${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('queues scenarios posted as an array, then falls back to the default', async () => {
    const posted = await control('POST', '/scenarios', [
      { kind: 'text', text: 'one' },
      { kind: 'text', text: 'two' },
    ]);
    const texts: string[] = [];
    for (let i = 0; i < 3; i++)
      texts.push(
        openAiText(sseJson<OpenAiChunk>(await (await postOpenAi(openAiBody('three'))).text())),
      );

    expect(posted.status).toBe(200);
    expect(texts).toEqual(['one', 'two', 'You said: three']);
  });

  it('sets the default scenario from {default}', async () => {
    await control('POST', '/scenarios', { default: { kind: 'text', text: 'always' } });
    const first = openAiText(
      sseJson<OpenAiChunk>(await (await postOpenAi(openAiBody('x'))).text()),
    );
    const second = openAiText(
      sseJson<OpenAiChunk>(await (await postOpenAi(openAiBody('x'))).text()),
    );

    expect([first, second]).toEqual(['always', 'always']);
  });

  it('rejects an invalid scenario with 400 and leaves the queue unchanged', async () => {
    const response = await control('POST', '/scenarios', [
      { kind: 'text', text: 'ok' },
      { kind: 'teleport' },
    ]);
    const state = (await (await control('GET', '/state')).json()) as { queuedScenarios: number };

    expect(response.status).toBe(400);
    expect(await response.text()).toContain('teleport');
    expect(state.queuedScenarios).toBe(0);
  });

  it('reports recorded requests, clears them, and shows stream state', async () => {
    await (await postGemini(geminiBody('recorded'))).text();
    await mock.waitForRequest((r) => r.provider === 'gemini' && r.endedAt !== undefined);
    const listed = (await (
      await control('GET', '/requests?provider=gemini')
    ).json()) as RecordedRequest[];
    const state = (await (await control('GET', '/state')).json()) as Record<string, unknown>;
    const cleared = await control('DELETE', '/requests');

    expect(listed).toMatchObject([
      { provider: 'gemini', body: geminiBody('recorded'), completed: true },
    ]);
    expect(state).toMatchObject({
      openStreams: 0,
      closedByClient: 0,
      completedStreams: 1,
      queuedScenarios: 0,
    });
    expect(cleared.status).toBe(200);
    expect(mock.requests().filter((r) => r.provider !== 'control')).toEqual([]);
  });
});

describe('request recording', () => {
  it('records the exact body, the query and verbatim lower-cased headers per provider', async () => {
    const body = openAiBody('exact words', { temperature: 0.2 });
    await (await postOpenAi(body)).text();
    await (await postGemini(geminiBody('g'), `${GEMINI_STREAM_PATH}&extra=1`)).text();
    const [openai, gemini] = llmRequests();

    expect(openai).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      provider: 'openai',
      body,
      isPreflight: false,
    });
    expect(openai?.rawBody).toBe(JSON.stringify(body));
    expect(openai?.headers.authorization).toBe('Bearer sk-openai-test');
    expect(openai?.headers['x-goog-api-key']).toBeUndefined();
    expect(gemini).toMatchObject({
      path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
      query: { alt: 'sse', extra: '1' },
      provider: 'gemini',
    });
    expect(gemini?.headers['x-goog-api-key']).toBe('test-gemini');
    expect(gemini?.headers.authorization).toBeUndefined();
  });

  it('resolves waitForRequest when a matching request arrives later', async () => {
    const waiting = mock.waitForRequest((r) => r.provider === 'anthropic', 2_000);
    await (await postAnthropic(anthropicBody('later'))).text();

    expect((await waiting).body).toEqual(anthropicBody('later'));
  });

  it('rejects waitForRequest after the timeout when nothing matches', async () => {
    await expect(mock.waitForRequest(undefined, 20)).rejects.toThrow(/timed out/);
  });
});
