export { createLlmClient, computeRetryDelayMs, MAX_RETRIES, sleepWithSignal } from './llm-client';
export type { LlmClientDeps, SleepFunction } from './llm-client';
export { LlmRequestError, describeLlmError } from './errors';
export { computeCost, resolveModelInfo } from '../core/model/model-catalog';
export { PROVIDER_PRESETS, getProviderPreset } from '../core/model/provider-presets';
export type { ProviderPresetInfo } from '../core/model/provider-presets';
