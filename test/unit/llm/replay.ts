import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROVIDER_FIXTURES_DIR } from '../../mock-llm/fixtures';
import { asProviderId, readOrigin } from '../../../src/core/model';
import type { LlmEvent, ProviderConfig, ProviderPreset } from '../../../src/core/model';
import type { LlmRequest } from '../../../src/core/ports';
import { PROVIDER_PRESETS } from '../../../src/core/model/provider-presets';

/** Helpers for replaying recorded provider streams through the real client with a stub fetch. */

/** The recorded provider streams the repository ships (test/fixtures/providers). */
export const FIXTURES_DIR = PROVIDER_FIXTURES_DIR;

export function readFixture(file: string): string {
  return readFileSync(join(FIXTURES_DIR, file), 'utf8');
}

export type FixtureWire =
  'openai-chat' | 'openai-responses' | 'anthropic' | 'google' | 'openai-compatible';

/** Which provider a fixture belongs to, from its file name. */
export function selectFixtureProvider(file: string): { wire: FixtureWire; preset: ProviderPreset } {
  if (file.startsWith('openai-responses-')) return { wire: 'openai-responses', preset: 'openai' };
  if (file.startsWith('openai-chat-')) return { wire: 'openai-chat', preset: 'openai' };
  if (file.startsWith('anthropic-')) return { wire: 'anthropic', preset: 'anthropic' };
  if (file.startsWith('gemini-')) return { wire: 'google', preset: 'google' };
  for (const preset of ['groq', 'xai', 'ollama', 'openrouter'] as const) {
    if (file.startsWith(`${preset}-`)) return { wire: 'openai-compatible', preset };
  }
  if (file.startsWith('openai-compatible-')) return { wire: 'openai-compatible', preset: 'custom' };
  throw new Error(`No provider for fixture ${file}`);
}

/** Frames one JSON payload per the fixtures README. */
export function frameEvent(wire: FixtureWire, payload: string): string {
  switch (wire) {
    case 'anthropic':
    case 'openai-responses': {
      const parsed = JSON.parse(payload) as { type: string };
      return `event: ${parsed.type}\ndata: ${payload}\n\n`;
    }
    case 'google':
      return `data: ${payload}\r\n\r\n`;
    case 'openai-chat':
    case 'openai-compatible':
      return `data: ${payload}\n\n`;
  }
}

/** `.sse` files as they are; `.chunks.txt` framed line by line (plus `[DONE]` for OpenAI chat). */
export function frameFixture(file: string, wire: FixtureWire): string {
  const raw = readFixture(file);
  if (file.endsWith('.sse')) return raw;
  const lines = raw.split('\n').filter((line) => line.trim().length > 0);
  const body = lines.map((line) => frameEvent(wire, line)).join('');
  return wire === 'openai-chat' || wire === 'openai-compatible' ? `${body}data: [DONE]\n\n` : body;
}

/** Small seeded PRNG (mulberry32) so random chunking is reproducible. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Splits bytes at seeded random positions, and always inside the first CRLF and inside the
 * first multi-byte UTF-8 character when the body has them (the cases parsers get wrong).
 */
export function chunkBytes(bytes: Uint8Array, seed: number): Uint8Array[] {
  const random = createRandom(seed);
  const cuts = new Set<number>();
  for (let index = 0; index < Math.max(1, bytes.length / 40); index += 1) {
    cuts.add(1 + Math.floor(random() * (bytes.length - 1)));
  }
  const crlf = bytes.findIndex((byte, index) => byte === 0x0d && bytes[index + 1] === 0x0a);
  if (crlf >= 0) cuts.add(crlf + 1);
  const multiByte = bytes.findIndex((byte) => byte >= 0xc0);
  if (multiByte >= 0) cuts.add(multiByte + 1);
  const sorted = [...cuts].filter((cut) => cut > 0 && cut < bytes.length).sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const cut of sorted) {
    chunks.push(bytes.slice(start, cut));
    start = cut;
  }
  chunks.push(bytes.slice(start));
  return chunks;
}

export function streamChunks(
  chunks: Uint8Array[],
  onCancel?: () => void,
): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index];
      index += 1;
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
    cancel() {
      onCancel?.();
    },
  });
}

export interface RecordedRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal | undefined;
}

export interface StubReply {
  status?: number;
  headers?: Record<string, string>;
  body: string | ReadableStream<Uint8Array>;
}

/** A fetch that answers each call with the next reply and records what was sent. */
export function createStubFetch(replies: StubReply[] | ((call: number) => StubReply)) {
  const requests: RecordedRequest[] = [];
  const fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    const url = input instanceof Request ? input.url : input instanceof URL ? input.href : input;
    requests.push({ url, headers, body, signal: init?.signal ?? undefined });
    const reply =
      typeof replies === 'function' ? replies(requests.length - 1) : replies[requests.length - 1];
    if (reply === undefined) return Promise.reject(new Error('No stub reply left'));
    const status = reply.status ?? 200;
    return Promise.resolve(
      new Response(reply.body, {
        status,
        headers: {
          'content-type': status === 200 ? 'text/event-stream' : 'application/json',
          ...reply.headers,
        },
      }),
    );
  };
  return { fetch, requests };
}

export function buildProvider(
  preset: ProviderPreset,
  overrides: Partial<ProviderConfig> = {},
): ProviderConfig {
  const info = PROVIDER_PRESETS[preset];
  const provider: ProviderConfig = {
    id: asProviderId(`provider-${preset}`),
    name: info.name,
    kind: info.kind,
    preset,
    baseUrl: info.defaultBaseUrl.length > 0 ? info.defaultBaseUrl : 'https://llm.example.test/v1',
    apiKey: `key-${preset}`,
    headers: {},
    models: [],
    contextWindowOverrides: {},
    createdAt: 0,
    updatedAt: 0,
    ...overrides,
  };
  // A key is entered for its base URL unless the test says otherwise.
  return 'keyOrigin' in overrides || provider.apiKey === ''
    ? provider
    : { ...provider, keyOrigin: readOrigin(provider.baseUrl) };
}

export function buildFixtureProvider(file: string): ProviderConfig {
  const { wire, preset } = selectFixtureProvider(file);
  return buildProvider(preset, wire === 'openai-responses' ? { api: 'responses' } : {});
}

/** The tool names the fixtures call, declared so the SDK accepts their calls. */
export const FIXTURE_TOOLS = [
  'weather',
  'read_file',
  'run_command',
  'updateIssueList',
  'get_weather',
  'make_file',
  'GetWeatherArgs',
  'get_stock_price',
  'calculator',
  'now',
];

export function buildRequest(
  provider: ProviderConfig,
  overrides: Partial<LlmRequest> = {},
): LlmRequest {
  return {
    provider,
    modelId: 'test-model',
    messages: [{ role: 'user', content: 'Hello' }],
    tools: FIXTURE_TOOLS.map((name) => ({
      name,
      description: `The ${name} tool`,
      inputSchema: { type: 'object', properties: {}, additionalProperties: true },
    })),
    ...overrides,
  };
}

export async function collectEvents(events: AsyncIterable<LlmEvent>): Promise<LlmEvent[]> {
  const collected: LlmEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

/** The facts a fixture expectation is written in. */
export interface StreamSummary {
  text: string;
  reasoning: string;
  reasoningEnds: number;
  toolCalls: { id: string; name: string; argumentsText: string }[];
  usage: Extract<LlmEvent, { type: 'usage' }>['usage'] | undefined;
  errors: string[];
  finish: string | undefined;
  finishCount: number;
}

export function summarizeEvents(events: LlmEvent[]): StreamSummary {
  const summary: StreamSummary = {
    text: '',
    reasoning: '',
    reasoningEnds: 0,
    toolCalls: [],
    usage: undefined,
    errors: [],
    finish: undefined,
    finishCount: 0,
  };
  for (const event of events) {
    switch (event.type) {
      case 'text-delta':
        summary.text += event.text;
        break;
      case 'reasoning-delta':
        summary.reasoning += event.text;
        break;
      case 'reasoning-end':
        summary.reasoningEnds += 1;
        break;
      case 'tool-call-end':
        summary.toolCalls.push({
          id: event.id,
          name: event.name,
          argumentsText: event.argumentsText,
        });
        break;
      case 'usage':
        summary.usage = event.usage;
        break;
      case 'error':
        summary.errors.push(event.error.code);
        break;
      case 'finish':
        summary.finish = event.reason;
        summary.finishCount += 1;
        break;
      case 'tool-call-start':
      case 'tool-call-delta':
        break;
    }
  }
  return summary;
}
