import { describe, expect, it } from 'vitest';
import type { GenerationControls, LlmMessage, ProviderPreset } from '../../../src/core/model';
import type { LlmRequest } from '../../../src/core/ports';
import { createLlmClient } from '../../../src/llm';
import { fitThinkingBudget } from '../../../src/llm/call-settings';
import {
  buildFixtureProvider,
  buildProvider,
  collectEvents,
  createStubFetch,
  frameFixture,
  selectFixtureProvider,
} from './replay';

/**
 * What a request with generation controls sends, read from the body each provider receives.
 * The replies are recorded streams (test/fixtures/providers); only the request is under test.
 */

type Body = Record<string, unknown>;

const REPLIES: Record<string, string> = {
  'openai-chat': 'openai-chat-text.sse',
  'openai-responses': 'openai-responses-reasoning-function-call.chunks.txt',
  anthropic: 'anthropic-thinking.chunks.txt',
  google: 'gemini-text.sse',
  'openai-compatible': 'xai-reasoning-tool-call.excerpt.chunks.txt',
};

async function sendAndReadBody(
  wire: keyof typeof REPLIES,
  request: Omit<LlmRequest, 'provider' | 'tools'> & { preset?: ProviderPreset },
): Promise<Body> {
  const fixture = REPLIES[wire] ?? '';
  const { wire: fixtureWire } = selectFixtureProvider(fixture);
  const { fetch, requests } = createStubFetch([{ body: frameFixture(fixture, fixtureWire) }]);
  const provider =
    request.preset === undefined ? buildFixtureProvider(fixture) : buildProvider(request.preset);
  const { preset: _preset, ...rest } = request;
  await collectEvents(
    createLlmClient({ fetch }).stream({ ...rest, provider, tools: [] }, new AbortController().signal),
  );
  expect(requests).toHaveLength(1);
  return requests[0]?.body as Body;
}

const HELLO: LlmMessage[] = [
  { role: 'system', content: 'You are brief.' },
  { role: 'user', content: 'Hello' },
];
const SAMPLING: GenerationControls = { temperature: 0.3, topP: 0.9 };

describe('generation controls in the request body', () => {
  it('OpenAI Chat Completions: temperature, top_p and max_completion_tokens; no reasoning effort for a model that does not reason', async () => {
    const body = await sendAndReadBody('openai-chat', {
      modelId: 'gpt-4.1',
      messages: HELLO,
      maxOutputTokens: 1_500,
      controls: { ...SAMPLING, reasoningEffort: 'high', thinkingBudget: 4_000 },
    });
    expect(body.temperature).toBe(0.3);
    expect(body.top_p).toBe(0.9);
    expect(body.max_completion_tokens ?? body.max_tokens).toBe(1_500);
    expect(body).not.toHaveProperty('reasoning_effort');
    expect(JSON.stringify(body)).not.toContain('4000');
  });

  it('OpenAI Chat Completions: reasoning_effort for a reasoning model', async () => {
    const body = await sendAndReadBody('openai-chat', {
      modelId: 'o4-mini',
      messages: HELLO,
      controls: { reasoningEffort: 'low' },
    });
    expect(body.reasoning_effort).toBe('low');
  });

  it('OpenAI Responses: reasoning.effort next to the encrypted reasoning it asks for, and max_output_tokens', async () => {
    const body = await sendAndReadBody('openai-responses', {
      modelId: 'gpt-5',
      messages: HELLO,
      maxOutputTokens: 3_000,
      controls: { reasoningEffort: 'minimal' },
    });
    expect(body.reasoning).toMatchObject({ effort: 'minimal', summary: 'auto' });
    expect(body.include).toEqual(['reasoning.encrypted_content']);
    expect(body.store).toBe(false);
    expect(body.max_output_tokens).toBe(3_000);
  });

  it('Anthropic: a thinking budget inside max_tokens, the total held to what the window allows', async () => {
    const body = await sendAndReadBody('anthropic', {
      modelId: 'claude-sonnet-4-5',
      messages: HELLO,
      maxOutputTokens: 8_000,
      controls: { thinkingBudget: 4_000 },
    });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 4_000 });
    expect(body.max_tokens).toBe(8_000);
  });

  it('Anthropic: a budget too large for the room is cut to leave a quarter for the answer', async () => {
    const body = await sendAndReadBody('anthropic', {
      modelId: 'claude-sonnet-4-5',
      messages: HELLO,
      maxOutputTokens: 4_000,
      controls: { thinkingBudget: 32_000 },
    });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 3_000 });
    expect(body.max_tokens).toBe(4_000);
  });

  it('Anthropic: temperature and top_p without thinking; no thinking for a budget of 0', async () => {
    const body = await sendAndReadBody('anthropic', {
      modelId: 'claude-sonnet-4-5',
      messages: HELLO,
      maxOutputTokens: 1_000,
      controls: { temperature: 0.2, thinkingBudget: 0 },
    });
    expect(body.temperature).toBe(0.2);
    expect(body).not.toHaveProperty('thinking');
    expect(body.max_tokens).toBe(1_000);
  });

  it('Gemini: temperature, topP, maxOutputTokens and thinkingConfig in generationConfig', async () => {
    const body = await sendAndReadBody('google', {
      modelId: 'gemini-2.5-flash',
      messages: HELLO,
      maxOutputTokens: 2_000,
      controls: { ...SAMPLING, thinkingBudget: 512 },
    });
    expect(body.generationConfig).toMatchObject({
      temperature: 0.3,
      topP: 0.9,
      maxOutputTokens: 2_000,
      thinkingConfig: { thinkingBudget: 512, includeThoughts: true },
    });
  });

  it('Gemini: a budget of 0 turns thinking off and asks for no thoughts', async () => {
    const body = await sendAndReadBody('google', {
      modelId: 'gemini-2.5-flash',
      messages: HELLO,
      controls: { thinkingBudget: 0 },
    });
    expect(body.generationConfig).toMatchObject({
      thinkingConfig: { thinkingBudget: 0, includeThoughts: false },
    });
  });

  it('an OpenAI-compatible server gets temperature, top_p and max_tokens', async () => {
    const body = await sendAndReadBody('openai-compatible', {
      modelId: 'grok-4',
      messages: HELLO,
      maxOutputTokens: 700,
      controls: SAMPLING,
    });
    expect(body).toMatchObject({ temperature: 0.3, top_p: 0.9, max_tokens: 700 });
  });

  it('sends no sampling field at all when nothing is set, so the provider defaults hold', async () => {
    const body = await sendAndReadBody('openai-chat', { modelId: 'gpt-4.1', messages: HELLO });
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_p');
    expect(body).not.toHaveProperty('reasoning_effort');
  });
});

describe('Anthropic prompt caching in the request body', () => {
  const conversation: LlmMessage[] = [
    { role: 'system', content: 'You are brief.' },
    { role: 'user', content: 'Who leads design?' },
    { role: 'assistant', content: [{ type: 'text', text: 'Ana.' }] },
    { role: 'user', content: 'And engineering?' },
    { role: 'user', content: '<reminder>Be brief.</reminder>' },
  ];

  it('puts cache_control on the system prompt and on the messages that end a stable prefix', async () => {
    const body = await sendAndReadBody('anthropic', {
      modelId: 'claude-sonnet-4-5',
      messages: conversation,
      cacheBreakpoints: [0, 2, 3],
    });
    const system = body.system as Array<Record<string, unknown>>;
    expect(system.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
    const messages = body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    // The SDK merges consecutive user messages into one; each keeps its own part.
    const marked = messages.flatMap((message) =>
      message.content.filter((part) => part.cache_control !== undefined).map((part) => part.text),
    );
    expect(marked).toEqual(['Ana.', 'And engineering?']);
    expect(JSON.stringify(body)).not.toContain('"text":"<reminder>Be brief.</reminder>","cache_control"');
  });

  it('marks nothing for OpenAI, which caches stable prefixes by itself', async () => {
    const body = await sendAndReadBody('openai-chat', {
      modelId: 'gpt-4.1',
      messages: conversation,
      cacheBreakpoints: [0, 2, 3],
    });
    expect(JSON.stringify(body)).not.toContain('cache_control');
  });

  it("sends the chat's cache key to OpenAI, on both of its APIs, so a chat's turns reach the machine holding its prefix", async () => {
    const chat = await sendAndReadBody('openai-chat', { modelId: 'gpt-4.1', messages: conversation, cacheKey: 'session-42' });
    expect(chat.prompt_cache_key).toBe('session-42');
    const responses = await sendAndReadBody('openai-responses', { modelId: 'gpt-5-mini', messages: conversation, cacheKey: 'session-42' });
    expect(responses.prompt_cache_key).toBe('session-42');
  });

  it('sends no cache key to providers that do not route by one', async () => {
    const models = { anthropic: 'claude-sonnet-4-5', google: 'gemini-2.5-flash', 'openai-compatible': 'grok-4' } as const;
    for (const [wire, modelId] of Object.entries(models) as Array<[keyof typeof models, string]>) {
      const body = await sendAndReadBody(wire, { modelId, messages: HELLO, cacheKey: 'session-42' });
      expect(JSON.stringify(body), wire).not.toContain('session-42');
    }
  });
});

describe('fitThinkingBudget', () => {
  it('keeps a budget that leaves a quarter of the output for the answer', () => {
    expect(fitThinkingBudget(2_000, 10_000)).toBe(2_000);
  });

  it('gives up thinking when even the smallest budget Anthropic accepts does not fit', () => {
    expect(fitThinkingBudget(8_000, 1_200)).toBeUndefined();
  });
});
