import type { ModelInfo, ProviderConfig } from '../core/model';
import type { ReadableTextExtractor } from '../core/ports';
import { ANTHROPIC_BROWSER_HEADER, LOCAL_IS_NOT_HTTP } from './create-language-model';
import type { FetchFunction } from './create-language-model';
import {
  checkKeyUse,
  classifyHttpFailure,
  collectProviderSecrets,
  guardKeyOrigin,
  classifyNetworkFailure,
  createAbortedError,
  isAbortError,
  LlmRequestError,
  parseJson,
  redactError,
} from './errors';
import { resolveModelInfo } from '../core/model/model-catalog';

interface ListEnv {
  fetch: FetchFunction;
  now: () => number;
  isOnline: () => boolean | undefined;
  readableText: ReadableTextExtractor | undefined;
  prepareReadableText: () => Promise<void>;
}

const ANTHROPIC_VERSION = '2023-06-01';
/** OpenAI lists every model it has; these are not chat models. */
const OPENAI_NON_CHAT_PATTERN =
  /embedding|whisper|tts|dall-e|davinci|babbage|moderation|image|audio|realtime|transcribe|search|sora/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readArray(value: unknown, key: string): Record<string, unknown>[] {
  const list = isRecord(value) ? value[key] : undefined;
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

function readPositiveInt(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number > 0 ? number : undefined;
}

function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path}`;
}

function buildRequest(provider: ProviderConfig): { url: string; headers: Record<string, string> } {
  switch (provider.kind) {
    case 'local':
      throw new Error(LOCAL_IS_NOT_HTTP);
    case 'anthropic':
      return {
        url: joinUrl(provider.baseUrl, 'models?limit=1000'),
        headers: {
          ...provider.headers,
          'x-api-key': provider.apiKey,
          'anthropic-version': ANTHROPIC_VERSION,
          [ANTHROPIC_BROWSER_HEADER]: 'true',
        },
      };
    case 'google':
      return {
        url: joinUrl(provider.baseUrl, 'models?pageSize=1000'),
        headers: { ...provider.headers, 'x-goog-api-key': provider.apiKey },
      };
    case 'openai':
    case 'openai-compatible':
      return {
        url: joinUrl(provider.baseUrl, 'models'),
        headers:
          provider.apiKey.length > 0
            ? { ...provider.headers, authorization: `Bearer ${provider.apiKey}` }
            : { ...provider.headers },
      };
  }
}

/** Listing facts win over the catalog; the catalog fills in what listings never say. */
function mergeListing(
  provider: ProviderConfig,
  id: string,
  listed: { contextWindow?: number; maxOutputTokens?: number; hasReasoning?: boolean },
): ModelInfo {
  const info = resolveModelInfo(provider, id);
  const hasOverride = provider.contextWindowOverrides[id] !== undefined;
  const contextWindow = hasOverride
    ? info.contextWindow
    : (listed.contextWindow ?? info.contextWindow);
  const maxOutputTokens = Math.min(listed.maxOutputTokens ?? info.maxOutputTokens, contextWindow);
  const isEstimate = info.isEstimate && listed.contextWindow === undefined;
  return {
    ...info,
    contextWindow,
    maxOutputTokens,
    hasReasoning: listed.hasReasoning ?? info.hasReasoning,
    isEstimate,
  };
}

function parseListing(provider: ProviderConfig, body: unknown): ModelInfo[] {
  switch (provider.kind) {
    case 'local':
      return [];
    case 'google':
      return readArray(body, 'models')
        .filter((model) => {
          const methods = model.supportedGenerationMethods;
          return !Array.isArray(methods) || methods.includes('generateContent');
        })
        .flatMap((model) => {
          const name =
            typeof model.name === 'string' ? model.name.replace(/^models\//, '') : undefined;
          if (name === undefined || name.length === 0) return [];
          return [
            mergeListing(provider, name, {
              contextWindow: readPositiveInt(model.inputTokenLimit),
              maxOutputTokens: readPositiveInt(model.outputTokenLimit),
              hasReasoning: typeof model.thinking === 'boolean' ? model.thinking : undefined,
            }),
          ];
        });
    case 'anthropic':
    case 'openai':
    case 'openai-compatible':
      return readArray(body, 'data').flatMap((model) => {
        const id = typeof model.id === 'string' ? model.id : undefined;
        if (id === undefined || id.length === 0) return [];
        if (provider.kind === 'openai' && OPENAI_NON_CHAT_PATTERN.test(id)) return [];
        // OpenRouter (and some gateways) say how large each model's window is.
        const topProvider = isRecord(model.top_provider) ? model.top_provider : {};
        return [
          mergeListing(provider, id, {
            contextWindow:
              readPositiveInt(model.context_length) ?? readPositiveInt(model.max_input_tokens),
            maxOutputTokens:
              readPositiveInt(topProvider.max_completion_tokens) ??
              readPositiveInt(model.max_tokens),
          }),
        ];
      });
  }
}

/**
 * Asks the provider which models it has: `/models` on OpenAI-style servers (OpenRouter adds
 * `context_length`; Ollama and LM Studio answer on their OpenAI-compatible `/v1/models`),
 * Anthropic `/v1/models`, Gemini `/v1beta/models`. Failures throw `LlmRequestError`.
 */
export async function listProviderModels(
  provider: ProviderConfig,
  signal: AbortSignal,
  env: ListEnv,
): Promise<ModelInfo[]> {
  const keyProblem = checkKeyUse(provider);
  if (keyProblem !== undefined) throw new LlmRequestError(keyProblem);
  const { url, headers } = buildRequest(provider);
  let response: Response;
  try {
    response = await guardKeyOrigin(env.fetch, provider)(url, { method: 'GET', headers, signal });
  } catch (error) {
    if (signal.aborted || isAbortError(error))
      throw new LlmRequestError(createAbortedError(provider));
    throw new LlmRequestError(classifyNetworkFailure(provider, env.isOnline()));
  }
  const text = await response.text();
  if (!response.ok) {
    await env.prepareReadableText();
    const headerRecord: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      headerRecord[key] = value;
    });
    throw new LlmRequestError(
      redactError(
        classifyHttpFailure(
          { status: response.status, body: text, headers: headerRecord },
          provider,
          { now: env.now(), readableText: env.readableText },
        ),
        collectProviderSecrets(provider),
      ),
    );
  }
  return parseListing(provider, parseJson(text)).sort((left, right) =>
    left.id.localeCompare(right.id),
  );
}
