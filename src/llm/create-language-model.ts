import type { wrapLanguageModel } from 'ai';
import type { ProviderConfig } from '../core/model';

/** Browsers get a CORS error from Anthropic unless this header says we mean it. */
export const ANTHROPIC_BROWSER_HEADER = 'anthropic-dangerous-direct-browser-access';

export type FetchFunction = typeof globalThis.fetch;

/** A provider package's model object (which the SDK's middleware can wrap). */
export type ProviderLanguageModel = Parameters<typeof wrapLanguageModel>[0]['model'];

/** The built-in model never reaches the HTTP path: llm-client hands it to the local client. */
export const LOCAL_IS_NOT_HTTP = 'The built-in model runs in this browser, not behind an HTTP API.';

/** Which wire protocol a config speaks; also picks how fixtures are framed in tests. */
export type WireApi =
  'openai-chat' | 'openai-responses' | 'anthropic' | 'google' | 'openai-compatible';

export function selectWireApi(provider: Pick<ProviderConfig, 'kind' | 'api'>): WireApi {
  switch (provider.kind) {
    case 'openai':
      return provider.api === 'responses' ? 'openai-responses' : 'openai-chat';
    case 'anthropic':
      return 'anthropic';
    case 'google':
      return 'google';
    case 'openai-compatible':
      return 'openai-compatible';
    case 'local':
      throw new Error(LOCAL_IS_NOT_HTTP);
  }
}

/** The SDK trims a trailing slash itself, but an empty key must mean "send none" (Ollama). */
function optionalKey(apiKey: string): string | undefined {
  return apiKey.length > 0 ? apiKey : undefined;
}

/**
 * Builds the AI SDK model for one request. Each provider package is imported on first use so
 * the worker only loads the ones the user configured. OpenAI defaults to Chat Completions
 * (`.chat`), which every OpenAI model and proxy speaks; `api: 'responses'` opts into the
 * Responses API (`.responses`).
 */
export async function createLanguageModel(
  provider: ProviderConfig,
  modelId: string,
  fetch: FetchFunction,
): Promise<ProviderLanguageModel> {
  const baseURL = provider.baseUrl;
  switch (provider.kind) {
    case 'openai': {
      const { createOpenAI } = await import('@ai-sdk/openai');
      const openai = createOpenAI({
        apiKey: provider.apiKey,
        baseURL,
        headers: provider.headers,
        fetch,
      });
      return provider.api === 'responses' ? openai.responses(modelId) : openai.chat(modelId);
    }
    case 'anthropic': {
      const { createAnthropic } = await import('@ai-sdk/anthropic');
      return createAnthropic({
        apiKey: provider.apiKey,
        baseURL,
        headers: { ...provider.headers, [ANTHROPIC_BROWSER_HEADER]: 'true' },
        fetch,
      })(modelId);
    }
    case 'google': {
      const { createGoogle } = await import('@ai-sdk/google');
      return createGoogle({
        apiKey: provider.apiKey,
        baseURL,
        headers: provider.headers,
        fetch,
      })(modelId);
    }
    case 'local':
      throw new Error(LOCAL_IS_NOT_HTTP);
    case 'openai-compatible': {
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return createOpenAICompatible({
        name: provider.preset,
        baseURL,
        apiKey: optionalKey(provider.apiKey),
        headers: provider.headers,
        // Ask for the usage chunk (stream_options.include_usage); servers that ignore it still work.
        includeUsage: true,
        fetch,
      }).chatModel(modelId);
    }
  }
}
