import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { LlmEvent } from '../../../src/core/model';
import { createLlmClient, MAX_RETRIES } from '../../../src/llm';
import { toToolSet } from '../../../src/llm/llm-client';
import {
  buildProvider,
  buildRequest,
  collectEvents,
  createStubFetch,
  frameFixture,
  readFixture,
  summarizeEvents,
} from './replay';
import type { StubReply } from './replay';

const OPENAI_TEXT = frameFixture('openai-chat-text.sse', 'openai-chat');
const RATE_LIMIT_BODY = JSON.stringify({
  error: {
    message: 'Rate limit reached.',
    type: 'requests',
    param: null,
    code: 'rate_limit_exceeded',
  },
});
const QUOTA_BODY = JSON.stringify({
  error: {
    message: 'You exceeded your current quota.',
    type: 'insufficient_quota',
    param: null,
    code: 'insufficient_quota',
  },
});

function recordSleeps() {
  const sleeps: number[] = [];
  const sleep = (ms: number) => {
    sleeps.push(ms);
    return Promise.resolve();
  };
  return { sleeps, sleep };
}

function streamOnce(
  replies: StubReply[] | ((call: number) => StubReply),
  preset: 'openai' | 'anthropic' | 'google' = 'openai',
) {
  const stub = createStubFetch(replies);
  const { sleeps, sleep } = recordSleeps();
  const client = createLlmClient({ fetch: stub.fetch, sleep });
  const run = collectEvents(
    client.stream(buildRequest(buildProvider(preset)), new AbortController().signal),
  );
  return { stub, sleeps, run };
}

beforeAll(() => {
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
});

describe('retrying rate limits', () => {
  it('waits the retry-after seconds and then streams the answer', async () => {
    const { stub, sleeps, run } = streamOnce([
      { status: 429, headers: { 'retry-after': '2' }, body: RATE_LIMIT_BODY },
      { body: OPENAI_TEXT },
    ]);
    const summary = summarizeEvents(await run);
    expect(sleeps).toEqual([2000]);
    expect(stub.requests).toHaveLength(2);
    expect(summary.errors).toEqual([]);
    expect(summary.finish).toBe('stop');
    expect(summary.text).toContain('San Francisco');
  });

  it('prefers retry-after-ms over retry-after', async () => {
    const { sleeps, run } = streamOnce([
      {
        status: 429,
        headers: { 'retry-after-ms': '250', 'retry-after': '9' },
        body: RATE_LIMIT_BODY,
      },
      { body: OPENAI_TEXT },
    ]);
    await run;
    expect(sleeps).toEqual([250]);
  });

  it("waits Gemini's RetryInfo delay when there is no header", async () => {
    const { sleeps, run } = streamOnce(
      [
        { status: 429, body: readFixture('gemini-error-429-retry-info.json') },
        { body: frameFixture('gemini-text.sse', 'google') },
      ],
      'google',
    );
    expect(summarizeEvents(await run).finish).toBe('stop');
    expect(sleeps).toEqual([34_400]);
  });

  it('backs off exponentially and gives up after a bounded number of retries', async () => {
    const { stub, sleeps, run } = streamOnce(() => ({
      status: 429,
      body: JSON.stringify({ error: { message: 'Slow down', code: 'rate_limit_exceeded' } }),
    }));
    const events = await run;
    expect(stub.requests).toHaveLength(1 + MAX_RETRIES);
    expect(sleeps).toEqual([1000, 2000, 4000]);
    expect(events).toEqual([
      {
        type: 'error',
        error: expect.objectContaining({ code: 'rate_limited', status: 429 }) as unknown,
      },
      { type: 'finish', reason: 'error' },
    ]);
  });

  it('retries an Anthropic overload (529) too', async () => {
    const { stub, run } = streamOnce(
      [
        {
          status: 529,
          body: '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
        },
        { body: `${readFixture('anthropic-text.sse')}\n\n` },
      ],
      'anthropic',
    );
    const summary = summarizeEvents(await run);
    expect(stub.requests).toHaveLength(2);
    expect(summary).toMatchObject({ text: 'Hello there!', errors: [], finish: 'stop' });
  });

  it('never retries insufficient_quota', async () => {
    const { stub, sleeps, run } = streamOnce(() => ({
      status: 429,
      headers: { 'retry-after': '1' },
      body: QUOTA_BODY,
    }));
    const summary = summarizeEvents(await run);
    expect(stub.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(summary.errors).toEqual(['quota_exceeded']);
  });

  it('shows the error instead of waiting when the provider asks for more than a minute', async () => {
    const { stub, sleeps, run } = streamOnce(() => ({
      status: 429,
      headers: { 'retry-after': '3600' },
      body: RATE_LIMIT_BODY,
    }));
    const events = await run;
    expect(stub.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(events[0]).toMatchObject({
      type: 'error',
      error: { code: 'rate_limited', retryAfterMs: 3_600_000 },
    });
  });

  it('stops waiting when aborted during the backoff and finishes interrupted without an error', async () => {
    const stub = createStubFetch(() => ({
      status: 429,
      headers: { 'retry-after': '5' },
      body: RATE_LIMIT_BODY,
    }));
    const controller = new AbortController();
    const client = createLlmClient({
      fetch: stub.fetch,
      sleep: (_ms, signal) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
          controller.abort();
        }),
    });
    const events = await collectEvents(
      client.stream(buildRequest(buildProvider('openai')), controller.signal),
    );
    expect(events).toEqual([{ type: 'finish', reason: 'interrupted' }]);
    expect(stub.requests).toHaveLength(1);
  });
});

describe('aborting a stream', () => {
  it('cancels the response body, aborts the request signal and ends promptly as interrupted', async () => {
    const firstEvents = new TextEncoder().encode(
      OPENAI_TEXT.split('\n\n').slice(0, 3).join('\n\n') + '\n\n',
    );
    let isCancelled = false;
    let hasSentFirst = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!hasSentFirst) {
          hasSentFirst = true;
          controller.enqueue(firstEvents);
        }
        // Then the server goes quiet: only the abort can end this stream.
        return new Promise<void>(() => undefined);
      },
      cancel() {
        isCancelled = true;
      },
    });
    const stub = createStubFetch([{ body }]);
    const controller = new AbortController();
    const client = createLlmClient({ fetch: stub.fetch });
    const events: LlmEvent[] = [];
    for await (const event of client.stream(
      buildRequest(buildProvider('openai')),
      controller.signal,
    )) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    expect(events.filter((event) => event.type === 'text-delta').length).toBeGreaterThan(0);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'interrupted' });
    expect(events.some((event) => event.type === 'error')).toBe(false);
    expect(stub.requests[0]?.signal?.aborted).toBe(true);
    expect(isCancelled).toBe(true);
  });

  it('finishes interrupted without calling the provider when already aborted', async () => {
    const stub = createStubFetch([{ body: OPENAI_TEXT }]);
    const controller = new AbortController();
    controller.abort();
    const events = await collectEvents(
      createLlmClient({ fetch: stub.fetch }).stream(
        buildRequest(buildProvider('openai')),
        controller.signal,
      ),
    );
    expect(events).toEqual([{ type: 'finish', reason: 'interrupted' }]);
  });
});

describe('network failures', () => {
  const failingFetch = () => Promise.reject(new TypeError('Failed to fetch'));

  it('explains CORS and how to allow the page for Ollama when the browser is online', async () => {
    const client = createLlmClient({ fetch: failingFetch, isOnline: () => true });
    const events = await collectEvents(
      client.stream(
        buildRequest(buildProvider('ollama', { apiKey: '' })),
        new AbortController().signal,
      ),
    );
    expect(events[0]).toMatchObject({ type: 'error', error: { code: 'cors' } });
    expect(events[0]?.type === 'error' && events[0].error.message).toContain('OLLAMA_ORIGINS');
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'error' });
  });

  it('points at the CORS switch for LM Studio', async () => {
    const client = createLlmClient({ fetch: failingFetch, isOnline: () => undefined });
    const events = await collectEvents(
      client.stream(
        buildRequest(buildProvider('lmstudio', { apiKey: '' })),
        new AbortController().signal,
      ),
    );
    expect(events[0]?.type === 'error' && events[0].error.message).toContain('Enable CORS');
  });

  it('says offline when the browser reports no connection', async () => {
    const client = createLlmClient({ fetch: failingFetch, isOnline: () => false });
    const events = await collectEvents(
      client.stream(buildRequest(buildProvider('openai')), new AbortController().signal),
    );
    expect(events[0]).toMatchObject({ type: 'error', error: { code: 'offline' } });
  });
});

describe('request shape', () => {
  it('sends the browser-access header and the key to Anthropic only', async () => {
    const stub = createStubFetch([{ body: `${readFixture('anthropic-text.sse')}\n\n` }]);
    await collectEvents(
      createLlmClient({ fetch: stub.fetch }).stream(
        buildRequest(buildProvider('anthropic')),
        new AbortController().signal,
      ),
    );
    expect(stub.requests[0]?.url).toBe('https://api.anthropic.com/v1/messages');
    expect(stub.requests[0]?.headers).toMatchObject({
      'anthropic-dangerous-direct-browser-access': 'true',
      'x-api-key': 'key-anthropic',
    });
  });

  it("sends each configured provider's key only to that provider's base URL", async () => {
    const providers = [
      buildProvider('openai'),
      buildProvider('anthropic'),
      buildProvider('google'),
      buildProvider('openrouter'),
      buildProvider('custom', {
        baseUrl: 'https://gateway.example.test/v1',
        headers: { 'x-team': 'blue' },
      }),
    ];
    const stub = createStubFetch(() => ({
      status: 500,
      body: '{"error":{"message":"stop here"}}',
    }));
    const client = createLlmClient({ fetch: stub.fetch });
    for (const provider of providers) {
      await collectEvents(client.stream(buildRequest(provider), new AbortController().signal));
    }
    expect(stub.requests).toHaveLength(providers.length);
    stub.requests.forEach((request, index) => {
      const provider = providers[index];
      if (provider === undefined) throw new Error('missing provider');
      expect(request.url.startsWith(provider.baseUrl)).toBe(true);
      const headerText = JSON.stringify(request.headers);
      expect(headerText).toContain(provider.apiKey);
      for (const other of providers.filter((candidate) => candidate !== provider)) {
        expect(headerText).not.toContain(other.apiKey);
        expect(request.url).not.toContain(other.apiKey);
      }
    });
    expect(stub.requests[4]?.headers['x-team']).toBe('blue');
  });

  it('sends an attached image inline to each provider, and keeps a later system message', async () => {
    const stub = createStubFetch([
      { body: OPENAI_TEXT },
      { body: `${readFixture('anthropic-text.sse')}\n\n` },
    ]);
    const client = createLlmClient({ fetch: stub.fetch });
    const messages = [
      { role: 'user' as const, content: 'Earlier question' },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'Earlier answer' }] },
      { role: 'system' as const, content: 'Answer in French from now on.' },
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'What is this?' },
          {
            type: 'image' as const,
            image: 'data:image/png;base64,iVBORw0KGgo=',
            mediaType: 'image/png',
          },
        ],
      },
    ];
    for (const preset of ['openai', 'anthropic'] as const) {
      const events = await collectEvents(
        client.stream(
          buildRequest(buildProvider(preset), { messages }),
          new AbortController().signal,
        ),
      );
      expect(events.filter((event) => event.type === 'error')).toEqual([]);
    }
    expect(stub.requests[0]?.body).toMatchObject({
      messages: [
        { role: 'user', content: 'Earlier question' },
        { role: 'assistant', content: 'Earlier answer' },
        { role: 'system', content: 'Answer in French from now on.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    expect(JSON.stringify(stub.requests[1]?.body)).toContain(
      '{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}',
    );
    expect(JSON.stringify(stub.requests[1]?.body)).toContain('Answer in French from now on.');
  });

  it('sends the instructions as the system prompt without an AI SDK warning', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const stub = createStubFetch([
        { body: OPENAI_TEXT },
        { body: `${readFixture('anthropic-text.sse')}\n\n` },
      ]);
      const client = createLlmClient({ fetch: stub.fetch });
      const messages = [
        { role: 'system' as const, content: 'Be brief.' },
        { role: 'system' as const, content: 'Cite sources.' },
        { role: 'user' as const, content: 'Hello' },
      ];
      for (const preset of ['openai', 'anthropic'] as const) {
        await collectEvents(
          client.stream(
            buildRequest(buildProvider(preset), { messages }),
            new AbortController().signal,
          ),
        );
      }
      expect(stub.requests[0]?.body).toMatchObject({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'system', content: 'Cite sources.' },
          { role: 'user', content: 'Hello' },
        ],
      });
      expect(stub.requests[1]?.body).toMatchObject({
        system: [
          { type: 'text', text: 'Be brief.' },
          { type: 'text', text: 'Cite sources.' },
        ],
        messages: [{ role: 'user' }],
      });
      const warnings = warn.mock.calls.map((call) => call.map(String).join(' '));
      expect(warnings.filter((line) => line.includes('AI SDK Warning'))).toEqual([]);
    } finally {
      warn.mockRestore();
    }
  });

  it('sends nothing and asks for the key when a provider that needs one has none', async () => {
    const stub = createStubFetch([{ body: OPENAI_TEXT }]);
    const client = createLlmClient({ fetch: stub.fetch });
    const provider = buildProvider('anthropic', { apiKey: '' });
    const events = await collectEvents(
      client.stream(buildRequest(provider), new AbortController().signal),
    );
    expect(events).toEqual([
      {
        type: 'error',
        error: {
          code: 'key_needed',
          message:
            'Anthropic needs its API key before Carrel can send anything. Enter the key in Settings › Providers.',
        },
      },
      { type: 'finish', reason: 'error' },
    ]);
    await expect(client.listModels(provider, new AbortController().signal)).rejects.toMatchObject({
      error: { code: 'key_needed' },
    });
    expect(stub.requests).toEqual([]);
  });

  it('refuses to send a key to another origin than the one it was entered for', async () => {
    const stub = createStubFetch([{ body: OPENAI_TEXT }]);
    const client = createLlmClient({ fetch: stub.fetch });
    const provider = buildProvider('openai', {
      baseUrl: 'https://attacker.example/v1',
      keyOrigin: 'https://api.openai.com',
    });
    const events = await collectEvents(
      client.stream(buildRequest(provider), new AbortController().signal),
    );
    expect(events[0]).toMatchObject({
      type: 'error',
      error: {
        code: 'key_needed',
        message: expect.stringContaining(
          'was entered for https://api.openai.com, but its base URL now points to https://attacker.example',
        ) as string,
      },
    });
    await expect(client.listModels(provider, new AbortController().signal)).rejects.toMatchObject({
      error: { code: 'key_needed' },
    });
    expect(stub.requests).toEqual([]);
  });

  it('keeps the key out of an error that echoes the request', async () => {
    const key = 'sk-proj-ECHOED-0123456789abcdef';
    const echo = (call: number) => ({
      status: call === 0 ? 401 : 400,
      body: JSON.stringify({
        error: { message: `Incorrect API key provided: ${key}. Header was Bearer ${key}.` },
      }),
    });
    const stub = createStubFetch(echo);
    const client = createLlmClient({ fetch: stub.fetch });
    const provider = buildProvider('openai', { apiKey: key });
    const events = await collectEvents(
      client.stream(buildRequest(provider), new AbortController().signal),
    );
    const error = events.find((event) => event.type === 'error');
    expect(JSON.stringify(error)).not.toContain(key);
    expect(error).toMatchObject({
      error: {
        providerMessage:
          'Incorrect API key provided: [API key removed]. Header was Bearer [API key removed].',
      },
    });
    const listing = await client
      .listModels(provider, new AbortController().signal)
      .catch((failure: unknown) => failure);
    expect(JSON.stringify(listing)).not.toContain(key);
    expect(stub.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
  });

  it('sends no authorization header to a keyless local server', async () => {
    const stub = createStubFetch([{ body: readFixture('ollama-parallel-tool-calls.sse') }]);
    await collectEvents(
      createLlmClient({ fetch: stub.fetch }).stream(
        buildRequest(buildProvider('ollama', { apiKey: '' })),
        new AbortController().signal,
      ),
    );
    expect(stub.requests[0]?.url).toBe('http://localhost:11434/v1/chat/completions');
    expect(stub.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('declares tools without execute so the agent loop runs them', async () => {
    const tools = toToolSet([
      { name: 'search', description: 'Search files', inputSchema: { type: 'object' } },
    ]);
    expect(Object.keys(tools ?? {})).toEqual(['search']);
    expect(tools?.search?.execute).toBeUndefined();
    const stub = createStubFetch([{ body: OPENAI_TEXT }]);
    await collectEvents(
      createLlmClient({ fetch: stub.fetch }).stream(
        buildRequest(buildProvider('openai')),
        new AbortController().signal,
      ),
    );
    expect(stub.requests[0]?.url).toBe('https://api.openai.com/v1/chat/completions');
    expect(stub.requests[0]?.body).toMatchObject({
      stream: true,
      tools: expect.arrayContaining([expect.objectContaining({ type: 'function' })]) as unknown,
    });
  });

  it('sends the Anthropic thinking signature back with the earlier reasoning', async () => {
    const stub = createStubFetch([{ body: `${readFixture('anthropic-text.sse')}\n\n` }]);
    const request = buildRequest(buildProvider('anthropic'), {
      messages: [
        { role: 'user', content: 'What is 925 / 5?' },
        {
          role: 'assistant',
          content: [
            {
              type: 'reasoning',
              text: 'Divide.',
              providerState: { anthropic: { signature: 'sig-123' } },
            },
            { type: 'tool-call', toolCallId: 'call-1', toolName: 'calculator', input: { a: 925 } },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'call-1',
              toolName: 'calculator',
              output: 'boom',
              isError: true,
            },
          ],
        },
      ],
    });
    await collectEvents(
      createLlmClient({ fetch: stub.fetch }).stream(request, new AbortController().signal),
    );
    const body = JSON.stringify(stub.requests[0]?.body);
    expect(body).toContain('"type":"thinking","thinking":"Divide.","signature":"sig-123"');
    expect(body).toContain('"tool_use_id":"call-1"');
    expect(body).toContain('"is_error":true');
  });
});
