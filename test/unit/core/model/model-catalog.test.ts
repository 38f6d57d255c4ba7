import { describe, expect, it } from 'vitest';
import { computeCost, createLlmClient, LlmRequestError, resolveModelInfo } from '../../../../src/llm';
import { buildProvider, createStubFetch } from '../../llm/replay';

describe('resolving model info', () => {
  const openai = buildProvider('openai');

  it('finds a catalog model by exact id', () => {
    expect(resolveModelInfo(openai, 'gpt-4o-mini')).toMatchObject({
      id: 'gpt-4o-mini',
      contextWindow: 128_000,
      encoding: 'o200k_base',
      hasVision: true,
      isEstimate: false,
    });
  });

  it('resolves dated snapshots and routed ids to their family', () => {
    expect(resolveModelInfo(openai, 'gpt-4o-2024-08-06').pricing).toMatchObject({
      input: 2.5,
      output: 10,
    });
    expect(resolveModelInfo(openai, 'gpt-4.1-mini-2025-04-14').maxOutputTokens).toBe(32_768);
    expect(
      resolveModelInfo(buildProvider('anthropic'), 'claude-sonnet-4-5-20250929'),
    ).toMatchObject({ maxOutputTokens: 64_000, hasReasoning: true });
    expect(
      resolveModelInfo(buildProvider('openrouter'), 'anthropic/claude-opus-4-1'),
    ).toMatchObject({ pricing: { input: 15 } });
    expect(
      resolveModelInfo(buildProvider('google'), 'models/gemini-2.5-flash-lite').pricing,
    ).toMatchObject({ input: 0.1 });
  });

  it('uses cl100k_base for gpt-4 and gpt-3.5, default for other vendors', () => {
    expect(resolveModelInfo(openai, 'gpt-4-0613').encoding).toBe('cl100k_base');
    expect(resolveModelInfo(openai, 'gpt-3.5-turbo-0125').encoding).toBe('cl100k_base');
    expect(resolveModelInfo(openai, 'o4-mini').encoding).toBe('o200k_base');
    expect(resolveModelInfo(buildProvider('deepseek'), 'deepseek-chat').encoding).toBe('default');
  });

  it('applies the user context-window override', () => {
    const provider = buildProvider('openai', { contextWindowOverrides: { 'gpt-4o': 32_000 } });
    expect(resolveModelInfo(provider, 'gpt-4o')).toMatchObject({
      contextWindow: 32_000,
      maxOutputTokens: 16_384,
    });
  });

  it('guesses conservatively for an unknown model and says so', () => {
    expect(resolveModelInfo(buildProvider('custom'), 'my-finetune')).toMatchObject({
      contextWindow: 8_192,
      maxOutputTokens: 2_048,
      encoding: 'default',
      isEstimate: true,
    });
  });

  it("assumes a local server's small loaded window until the user overrides it", () => {
    expect(resolveModelInfo(buildProvider('ollama'), 'qwen3:8b')).toMatchObject({
      contextWindow: 4_096,
      hasReasoning: true,
      isEstimate: true,
    });
    const raised = buildProvider('ollama', { contextWindowOverrides: { 'qwen3:8b': 32_768 } });
    expect(resolveModelInfo(raised, 'qwen3:8b')).toMatchObject({
      contextWindow: 32_768,
      isEstimate: false,
    });
  });
});

describe('computing cost', () => {
  it('prices cached input at the cache rate and the rest at list price', () => {
    const info = resolveModelInfo(buildProvider('openai'), 'gpt-4o');
    const cost = computeCost(info, {
      inputTokens: 1_000_000,
      cachedInputTokens: 400_000,
      outputTokens: 100_000,
    });
    expect(cost).toBeCloseTo(0.6 * 2.5 + 0.4 * 1.25 + 0.1 * 10, 10);
  });

  it('is undefined when the price is unknown', () => {
    expect(
      computeCost(resolveModelInfo(buildProvider('custom'), 'mystery'), {
        inputTokens: 10,
        outputTokens: 10,
      }),
    ).toBeUndefined();
  });
});

describe('listing models', () => {
  it("uses OpenRouter's context_length", async () => {
    const stub = createStubFetch([
      {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          data: [
            {
              id: 'openai/gpt-4o',
              context_length: 128000,
              top_provider: { max_completion_tokens: 16384 },
            },
            { id: 'some/new-model', context_length: 65536 },
          ],
        }),
      },
    ]);
    const models = await createLlmClient({ fetch: stub.fetch }).listModels(
      buildProvider('openrouter'),
      new AbortController().signal,
    );
    expect(stub.requests[0]?.url).toBe('https://openrouter.ai/api/v1/models');
    expect(stub.requests[0]?.headers.authorization).toBe('Bearer key-openrouter');
    expect(models).toEqual([
      expect.objectContaining({
        id: 'openai/gpt-4o',
        contextWindow: 128_000,
        maxOutputTokens: 16_384,
        isEstimate: false,
      }),
      expect.objectContaining({ id: 'some/new-model', contextWindow: 65_536, isEstimate: false }),
    ]);
  });

  it('reads Gemini token limits and skips models that cannot generate', async () => {
    const stub = createStubFetch([
      {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          models: [
            {
              name: 'models/gemini-2.5-pro',
              inputTokenLimit: 1048576,
              outputTokenLimit: 65536,
              supportedGenerationMethods: ['generateContent'],
            },
            {
              name: 'models/text-embedding-004',
              inputTokenLimit: 2048,
              outputTokenLimit: 1,
              supportedGenerationMethods: ['embedContent'],
            },
          ],
        }),
      },
    ]);
    const models = await createLlmClient({ fetch: stub.fetch }).listModels(
      buildProvider('google'),
      new AbortController().signal,
    );
    expect(stub.requests[0]?.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models?pageSize=1000',
    );
    expect(stub.requests[0]?.headers['x-goog-api-key']).toBe('key-google');
    expect(models.map((model) => [model.id, model.contextWindow, model.maxOutputTokens])).toEqual([
      ['gemini-2.5-pro', 1_048_576, 65_536],
    ]);
  });

  it('calls Anthropic with its version and browser headers', async () => {
    const stub = createStubFetch([
      {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ data: [{ id: 'claude-haiku-4-5-20251001', type: 'model' }] }),
      },
    ]);
    const models = await createLlmClient({ fetch: stub.fetch }).listModels(
      buildProvider('anthropic'),
      new AbortController().signal,
    );
    expect(stub.requests[0]?.headers).toMatchObject({
      'x-api-key': 'key-anthropic',
      'anthropic-version': '2023-06-01',
      'anthropic-dangerous-direct-browser-access': 'true',
    });
    expect(models[0]).toMatchObject({ id: 'claude-haiku-4-5-20251001', contextWindow: 200_000 });
  });

  it('throws a typed error when the key is refused', async () => {
    const stub = createStubFetch([
      {
        status: 401,
        body: '{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}',
      },
    ]);
    const listing = createLlmClient({ fetch: stub.fetch }).listModels(
      buildProvider('openai'),
      new AbortController().signal,
    );
    await expect(listing).rejects.toBeInstanceOf(LlmRequestError);
    await expect(listing).rejects.toMatchObject({ error: { code: 'invalid_key', status: 401 } });
  });

  it('reports an unreachable local server as a CORS problem with the fix', async () => {
    const client = createLlmClient({
      fetch: () => Promise.reject(new TypeError('Failed to fetch')),
      isOnline: () => true,
    });
    const listing = client.listModels(
      buildProvider('ollama', { apiKey: '' }),
      new AbortController().signal,
    );
    await expect(listing).rejects.toMatchObject({
      error: { code: 'cors', message: expect.stringContaining('OLLAMA_ORIGINS') as string },
    });
  });
});
