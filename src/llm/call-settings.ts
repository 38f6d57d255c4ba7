import type { streamText } from 'ai';
import { MIN_THINKING_BUDGET, type ModelInfo } from '../core/model';
import type { LlmRequest } from '../core/ports';
import { resolveModelInfo } from '../core/model/model-catalog';

type ProviderOptions = NonNullable<Parameters<typeof streamText>[0]['providerOptions']>;

/** What one request sends besides its prompt and tools, in the AI SDK's terms. */
export interface CallSettings {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  providerOptions?: ProviderOptions;
}

/**
 * Anthropic counts thinking inside `max_tokens` (the SDK sends answer length + budget): the
 * budget is cut so the total stays what the window allows, and at least this share of it is
 * left for the answer itself.
 */
export const MIN_ANSWER_SHARE_WITH_THINKING = 0.25;

/**
 * Reasoning controls go to models the catalog says reason, and to models it does not know
 * (a person who sets a thinking budget for a new model means it); a model known not to reason
 * gets none, so the provider does not reject the request.
 */
function canReason(info: ModelInfo): boolean {
  return info.hasReasoning || info.isEstimate;
}

/**
 * The thinking budget that fits in `total` output tokens with room left for the answer, or
 * undefined when even the smallest budget Anthropic accepts does not.
 */
export function fitThinkingBudget(budget: number, total: number): number | undefined {
  const fitted = Math.min(budget, Math.floor(total * (1 - MIN_ANSWER_SHARE_WITH_THINKING)));
  return fitted >= MIN_THINKING_BUDGET ? fitted : undefined;
}

/**
 * Responses API: `store: false` keeps conversations off OpenAI's servers, as a local-first app
 * should; reasoning models then only send their reasoning back to us (and so to the next
 * request) when asked for the encrypted content.
 */
function selectOpenAiOptions(request: LlmRequest, info: ModelInfo): ProviderOptions | undefined {
  const openai: ProviderOptions[string] = {};
  if (request.provider.api === 'responses') {
    openai.store = false;
    if (info.hasReasoning) {
      openai.include = ['reasoning.encrypted_content'];
      openai.reasoningSummary = 'auto';
    }
  }
  const effort = request.controls?.reasoningEffort;
  if (effort !== undefined && canReason(info)) openai.reasoningEffort = effort;
  if (request.cacheKey !== undefined) openai.promptCacheKey = request.cacheKey;
  return Object.keys(openai).length > 0 ? { openai } : undefined;
}

/**
 * Where each generation control goes for the request's provider: temperature, top-p and the
 * answer length are the SDK's own settings; reasoning effort (OpenAI), the thinking budget
 * (Anthropic `thinking`, Gemini `thinkingConfig`) are provider options. A control that is not
 * set sends nothing, so the provider's default holds.
 */
export function selectCallSettings(request: LlmRequest): CallSettings {
  const controls = request.controls ?? {};
  const settings: CallSettings = {};
  if (request.maxOutputTokens !== undefined) settings.maxOutputTokens = request.maxOutputTokens;
  if (controls.temperature !== undefined) settings.temperature = controls.temperature;
  if (controls.topP !== undefined) settings.topP = controls.topP;
  const info = resolveModelInfo(request.provider, request.modelId);
  const budget = canReason(info) ? controls.thinkingBudget : undefined;

  switch (request.provider.kind) {
    case 'openai': {
      const options = selectOpenAiOptions(request, info);
      if (options !== undefined) settings.providerOptions = options;
      break;
    }
    case 'anthropic': {
      if (budget === undefined || budget === 0) break;
      const total = request.maxOutputTokens;
      const fitted = total === undefined ? budget : fitThinkingBudget(budget, total);
      if (fitted === undefined) break;
      settings.providerOptions = { anthropic: { thinking: { type: 'enabled', budgetTokens: fitted } } };
      if (total !== undefined) settings.maxOutputTokens = total - fitted;
      break;
    }
    case 'google':
      if (budget === undefined) break;
      // Gemini counts thoughts inside maxOutputTokens itself; summaries are asked for so the
      // reasoning can be shown.
      settings.providerOptions = {
        google: { thinkingConfig: { thinkingBudget: budget, includeThoughts: budget > 0 } },
      };
      break;
    case 'openai-compatible':
    case 'local':
      break;
  }
  return settings;
}
