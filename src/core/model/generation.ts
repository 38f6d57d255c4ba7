import { z } from 'zod';

/** How hard an OpenAI reasoning model thinks before it answers (the API's `reasoning_effort`). */
export const reasoningEffortSchema = z.enum(['minimal', 'low', 'medium', 'high']);
export type ReasoningEffort = z.infer<typeof reasoningEffortSchema>;

export const MAX_TEMPERATURE = 2;
/** Anthropic refuses a thinking budget below this many tokens. */
export const MIN_THINKING_BUDGET = 1_024;

/**
 * Generation controls. Every field is optional: a field that is not set leaves the provider's
 * own default in place (nothing is sent for it). An agent holds one set; a chat may override
 * any field of it.
 */
export const generationSettingsSchema = z.object({
  temperature: z.number().min(0).max(MAX_TEMPERATURE).optional(),
  topP: z.number().gt(0).max(1).optional(),
  /** The most tokens an answer may have; lowered per request so prompt plus answer fit. */
  maxOutputTokens: z.number().int().positive().optional(),
  /** OpenAI reasoning models (o-series, gpt-5). */
  reasoningEffort: reasoningEffortSchema.optional(),
  /** Extended thinking for Anthropic and Gemini models that have it; 0 turns it off. */
  thinkingBudget: z.number().int().nonnegative().optional(),
});
export type GenerationSettings = z.infer<typeof generationSettingsSchema>;

/** What goes with one request besides its length: sampling and reasoning. */
export type GenerationControls = Omit<GenerationSettings, 'maxOutputTokens'>;

/**
 * Where the context puts the agent prompt and the project files. `recency` (the default) puts
 * them just above the newest user message, where the model attends most; `cache_friendly` keeps
 * them right after the system prompt, so the start of the request stays the same from turn to
 * turn and the providers' prompt caches can serve it.
 */
export const contextOrderSchema = z.enum(['recency', 'cache_friendly']);
export type ContextOrder = z.infer<typeof contextOrderSchema>;

/** The chat's override on top of the agent's settings, field by field. */
export function mergeGenerationSettings(
  agent: GenerationSettings | undefined,
  chat: GenerationSettings | undefined,
): GenerationSettings {
  return { ...agent, ...chat };
}

/** True when no field is set: nothing to store. */
export function isEmptyGeneration(settings: GenerationSettings | undefined): boolean {
  return settings === undefined || Object.values(settings).every((value) => value === undefined);
}
