import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LlmError, LlmErrorCode, ProviderPreset } from '../../../src/core/model';
import { createLlmClient } from '../../../src/llm';
import { MAX_PROVIDER_MESSAGE_CHARS, MAX_QUOTED_CHARS } from '../../../src/llm/errors';
import { createPageTextExtractor } from '../../../src/workers/agent/readable-text';
import type { FixtureWire, StubReply } from './replay';
import {
  FIXTURES_DIR,
  buildProvider,
  buildRequest,
  collectEvents,
  createStubFetch,
  frameEvent,
} from './replay';

interface ErrorEntry {
  id: string;
  status: number;
  transport: 'http-body' | 'sse-data';
  body?: string;
  body_file?: string;
}

const ERROR_FILES = [
  'openai-error-bodies.json',
  'anthropic-error-bodies.json',
  'gemini-error-bodies.json',
  'openai-compatible-error-bodies.json',
];

/** The code a person should see for every catalogued provider error. */
const EXPECTED_CODES: Record<string, LlmErrorCode> = {
  'openai-401-invalid-api-key': 'invalid_key',
  'openai-429-rate-limit-tpm': 'rate_limited',
  // Larger than the account's tokens-per-minute limit: waiting never helps, shortening does.
  'openai-429-request-too-large': 'context_too_long',
  'openai-429-insufficient-quota': 'quota_exceeded',
  'openai-400-context-length-exceeded-chat': 'context_too_long',
  'openai-responses-stream-context-length-exceeded': 'context_too_long',
  'openai-400-unsupported-parameter': 'bad_request',
  'openai-chat-stream-server-error': 'server_error',
  'anthropic-401-invalid-x-api-key': 'invalid_key',
  'anthropic-401-cors-header-missing': 'cors',
  'anthropic-401-cors-not-allowed-for-org': 'cors',
  'anthropic-400-prompt-too-long': 'context_too_long',
  'anthropic-400-input-plus-max-tokens-exceed': 'context_too_long',
  'anthropic-429-rate-limit': 'rate_limited',
  'anthropic-529-overloaded': 'overloaded',
  'anthropic-stream-overloaded': 'overloaded',
  'gemini-400-api-key-invalid': 'invalid_key',
  'gemini-400-input-token-count-exceeded': 'context_too_long',
  'gemini-429-resource-exhausted': 'rate_limited',
  'gemini-503-unavailable-high-demand': 'overloaded',
  'gemini-404-model-not-found-streaming': 'not_found',
  'gemini-stream-prompt-blocked': 'content_filter',
  'openrouter-401-no-auth': 'invalid_key',
  'openrouter-401-user-not-found': 'invalid_key',
  'openrouter-402-insufficient-credits': 'quota_exceeded',
  'openrouter-400-context-length': 'context_too_long',
  'deepseek-400-context-length': 'context_too_long',
  'ollama-404-model-not-found': 'not_found',
  'openrouter-stream-midstream-error': 'server_error',
  'lmstudio-context-overflow': 'context_too_long',
};

function selectEntryProvider(
  file: string,
  id: string,
): { preset: ProviderPreset; wire: FixtureWire } {
  if (file.startsWith('anthropic')) return { preset: 'anthropic', wire: 'anthropic' };
  if (file.startsWith('gemini')) return { preset: 'google', wire: 'google' };
  if (file.startsWith('openai-error')) {
    return id.startsWith('openai-responses')
      ? { preset: 'openai', wire: 'openai-responses' }
      : { preset: 'openai', wire: 'openai-chat' };
  }
  const preset = (['openrouter', 'deepseek', 'ollama', 'lmstudio'] as const).find((name) =>
    id.startsWith(name),
  );
  return { preset: preset ?? 'custom', wire: 'openai-compatible' };
}

const ENTRIES = ERROR_FILES.flatMap((file) => {
  const parsed = JSON.parse(readFileSync(join(FIXTURES_DIR, file), 'utf8')) as {
    errors: ErrorEntry[];
  };
  return parsed.errors.map((entry) => ({ file, entry }));
});

beforeAll(() => {
  (globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
});

describe('mapping provider error bodies to typed errors', () => {
  it('has an expected code for every catalogued error body', () => {
    expect(ENTRIES.length).toBe(30);
    expect(ENTRIES.map(({ entry }) => entry.id).sort()).toEqual(Object.keys(EXPECTED_CODES).sort());
  });

  for (const { file, entry } of ENTRIES) {
    it(`reports ${entry.id} (${entry.transport}) as ${EXPECTED_CODES[entry.id]}`, async () => {
      const { preset, wire } = selectEntryProvider(file, entry.id);
      const body = entry.body ?? readFileSync(join(FIXTURES_DIR, entry.body_file ?? ''), 'utf8');
      const reply =
        entry.transport === 'http-body'
          ? { status: entry.status, body }
          : {
              body:
                frameEvent(wire, body) +
                (wire === 'openai-chat' || wire === 'openai-compatible' ? 'data: [DONE]\n\n' : ''),
            };
      const stub = createStubFetch(() => reply);
      const sleeps: number[] = [];
      const client = createLlmClient({
        fetch: stub.fetch,
        sleep: (ms) => {
          sleeps.push(ms);
          return Promise.resolve();
        },
      });
      const provider = buildProvider(
        preset,
        wire === 'openai-responses' ? { api: 'responses' } : {},
      );
      const events = await collectEvents(
        client.stream(buildRequest(provider), new AbortController().signal),
      );
      const errors = events.flatMap((event) => (event.type === 'error' ? [event.error] : []));
      expect(errors).toHaveLength(1);
      expect(errors[0]?.code).toBe(EXPECTED_CODES[entry.id]);
      expect(errors[0]?.message.length).toBeGreaterThan(20);
      expect(events.at(-1)?.type).toBe('finish');
      expect(events.at(-1)).not.toEqual({ type: 'finish', reason: 'stop' });
    });
  }
});

/** One failed request through the real client; the error it reports. */
async function failOnce(reply: StubReply, preset: ProviderPreset = 'openai') {
  const stub = createStubFetch(() => reply);
  const client = createLlmClient({
    fetch: stub.fetch,
    sleep: () => Promise.resolve(),
    readableText: createPageTextExtractor(),
  });
  const events = await collectEvents(
    client.stream(buildRequest(buildProvider(preset)), new AbortController().signal),
  );
  const errors = events.flatMap((event) => (event.type === 'error' ? [event.error] : []));
  expect(errors).toHaveLength(1);
  return errors[0] as LlmError;
}

/** What nginx sends for a body over client_max_body_size, padded like a real error page. */
function buildHtmlPage(title: string, paddingChars: number): string {
  return `<!DOCTYPE html><html><head><title>${title}</title><style>body{color:red}</style><script>var x = "<b>";</script></head><body><center><h1>${title}</h1></center><hr><center>nginx</center>${'<!-- padding -->'.repeat(paddingChars / 16)}<p>${'More words. '.repeat(paddingChars / 12)}</p></body></html>`;
}

describe('a page reader fetched when a first response fails', () => {
  it('is not fetched for an answer, and reads an HTML error page as a reader given at start does', async () => {
    const loads: string[] = [];
    const loadReadableText = () => {
      loads.push('load');
      return Promise.resolve(createPageTextExtractor());
    };
    const page = buildHtmlPage('502 Bad Gateway', 2_000);
    // The first request is answered; every later one (retries included) gets the error page.
    const stub = createStubFetch((call): StubReply =>
      call === 0
        ? { body: readFileSync(join(FIXTURES_DIR, 'openai-chat-text.sse'), 'utf8') }
        : { status: 502, body: page, headers: { 'content-type': 'text/html' } },
    );
    const client = createLlmClient({ fetch: stub.fetch, sleep: () => Promise.resolve(), loadReadableText });
    const request = buildRequest(buildProvider('openai'));
    const answered = await collectEvents(client.stream(request, new AbortController().signal));
    expect(answered.some((event) => event.type === 'error')).toBe(false);
    expect(loads).toEqual([]);

    const failed = await collectEvents(client.stream(request, new AbortController().signal));
    const error = failed.flatMap((event) => (event.type === 'error' ? [event.error] : []))[0];
    const expected = await failOnce({ status: 502, body: page, headers: { 'content-type': 'text/html' } });
    expect(error?.providerMessage).toBe(expected.providerMessage);
    expect(error?.providerMessage).toMatch(/^502 Bad Gateway/);
    expect(loads).toEqual(['load']);
  });

  it('reads a failed model listing the same way, and leaves the page out when the reader cannot load', async () => {
    const page = buildHtmlPage('503 Service Unavailable', 2_000);
    const reply: StubReply = { status: 503, body: page, headers: { 'content-type': 'text/html' } };
    const reading = createLlmClient({
      fetch: createStubFetch(() => reply).fetch,
      loadReadableText: () => Promise.resolve(createPageTextExtractor()),
    });
    const refused = createLlmClient({
      fetch: createStubFetch(() => reply).fetch,
      loadReadableText: () => Promise.reject(new Error('offline')),
    });
    const signal = new AbortController().signal;
    const read = await reading.listModels(buildProvider('openai'), signal).catch((error: unknown) => error);
    const unread = await refused.listModels(buildProvider('openai'), signal).catch((error: unknown) => error);
    expect(String((read as { error?: LlmError }).error?.providerMessage)).toMatch(/^503 Service Unavailable/);
    expect((unread as { error?: LlmError }).error?.code).toBe('overloaded');
    expect((read as { error?: LlmError }).error?.code).toBe('overloaded');
    expect((unread as { error?: LlmError }).error?.providerMessage ?? '').not.toMatch(/Service Unavailable|</);
  });
});

describe('telling a person what went wrong, in words they can act on', () => {
  it('says a 413 was too large, and reduces a 300 KB HTML page to a few KB of its text', async () => {
    const page = buildHtmlPage('413 Request Entity Too Large', 300_000);
    const error = await failOnce({
      status: 413,
      body: page,
      headers: { 'content-type': 'text/html' },
    });
    expect(error.code).toBe('request_too_large');
    expect(error.message).toMatch(/too large for OpenAI \(HTTP 413\)\. Remove large attachments/);
    expect(error.message).not.toMatch(/unexpected/i);
    expect(error.providerMessage).toMatch(/^413 Request Entity Too Large/);
    expect(error.providerMessage).not.toMatch(/[<>]|color:red|var x/);
    expect(error.providerMessage?.length).toBeLessThanOrEqual(MAX_PROVIDER_MESSAGE_CHARS);
  });

  it.each([
    [401, 'invalid_key', /rejected the API key/],
    [403, 'invalid_key', /rejected the API key/],
    [404, 'not_found', /does not know this model/],
    [413, 'request_too_large', /too large/],
    [429, 'rate_limited', /Try again in about 7 s/],
    [500, 'server_error', /not working right now \(HTTP 500\)/],
    [502, 'server_error', /not working right now \(HTTP 502\)/],
    [504, 'server_error', /not working right now \(HTTP 504\)/],
  ] as const)('maps HTTP %i with an HTML page to %s', async (status, code, words) => {
    const error = await failOnce({
      status,
      body: buildHtmlPage(`${status} Gateway says no`, 2_000),
      headers: { 'content-type': 'text/html; charset=utf-8', 'retry-after': '7' },
    });
    expect(error.code).toBe(code);
    expect(error.message).toMatch(words);
    expect(error.message).not.toContain('<');
  });

  it('quotes a provider message without the quote marks at its ends, which would read as the quotation\'s own', async () => {
    const error = await failOnce({ status: 400, body: JSON.stringify({ error: { message: '" 0' } }) });
    expect(error.providerMessage).toBe('" 0');
    expect(error.message).toContain('said: "0")');
    const inner = await failOnce({ status: 400, body: JSON.stringify({ error: { message: ' "model" is "gpt-x" ' } }) });
    expect(inner.providerMessage).toBe('"model" is "gpt-x"');
    expect(inner.message).toContain('said: "model" is "gpt-x")');
  });

  it('quotes nothing when the provider message has no words, only quote marks and spaces', async () => {
    const error = await failOnce({
      status: 400,
      body: JSON.stringify({ error: { message: '" " " " ' } }),
    });
    expect(error.providerMessage).toBeUndefined();
    expect(error.message).not.toContain('said:');
  });

  it('keeps the message and the stored provider text short whatever the body', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 400, max: 599 }),
        fc.oneof(
          fc.string({ maxLength: 20_000 }),
          fc
            .string({ maxLength: 5_000 })
            .map((text) => JSON.stringify({ error: { message: text.repeat(4) } })),
          fc
            .string({ maxLength: 5_000 })
            .map((text) => `<html><body><p>${text.repeat(4)}</p></body></html>`),
        ),
        async (status, body) => {
          const error = await failOnce({ status, body });
          expect(error.message.length).toBeLessThanOrEqual(MAX_QUOTED_CHARS + 400);
          expect((error.providerMessage ?? '').length).toBeLessThanOrEqual(
            MAX_PROVIDER_MESSAGE_CHARS,
          );
          // Never an empty quotation; a provider message that starts with a quote mark is not one.
          expect(error.message).not.toMatch(/said: ""(?=[).,\s]|$)/);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('says the connection broke when the body stops with a network error mid-answer', async () => {
    const encoder = new TextEncoder();
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) {
          controller.error(new TypeError('network error'));
          return;
        }
        sent = true;
        controller.enqueue(
          encoder.encode(
            'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n',
          ),
        );
      },
    });
    const error = await failOnce({ body });
    expect(error.code).toBe('connection_lost');
    expect(error.message).toBe(
      'The connection to OpenAI broke before the answer was complete. Check your network and try again.',
    );
  });

  it('quotes nothing when the provider said nothing', async () => {
    const error = await failOnce({ status: 500, body: '   ' });
    expect(error.message).not.toContain('said:');
    expect(error.providerMessage).toBeUndefined();
  });
});
