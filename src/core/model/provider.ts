import { z } from 'zod';
import { providerIdSchema } from './ids';

/** The wire protocol a provider speaks; presets of `openai-compatible` only differ in defaults. */
export const providerKindSchema = z.enum([
  'openai',
  'anthropic',
  'google',
  'openai-compatible',
  /** The built-in model: runs in this browser, in the generation worker. */
  'local',
]);
export type ProviderKind = z.infer<typeof providerKindSchema>;

export const providerPresetSchema = z.enum([
  'openai',
  'anthropic',
  'google',
  'openrouter',
  'groq',
  'mistral',
  'deepseek',
  'xai',
  'together',
  'ollama',
  'lmstudio',
  'custom',
  'local',
]);
export type ProviderPreset = z.infer<typeof providerPresetSchema>;

export const providerConfigSchema = z.object({
  id: providerIdSchema,
  name: z.string().min(1),
  kind: providerKindSchema,
  preset: providerPresetSchema,
  /**
   * Base URL up to and including the API version segment, e.g. https://api.openai.com/v1. For the
   * built-in model: where its files come from (the Hugging Face hub, or a self-hosted folder).
   */
  baseUrl: z.string().url(),
  /**
   * OpenAI only: which OpenAI API to call. Chat Completions when absent; `responses` is needed
   * for encrypted reasoning round-trips and the Responses-only models.
   */
  api: z.enum(['chat', 'responses']).optional(),
  /** Stored in IndexedDB only; never logged, never exported unless the user opts in. */
  apiKey: z.string(),
  /**
   * The origin (`https://api.openai.com`) the key was entered for. The request layer sends the
   * key nowhere else, whatever the base URL says later; absent with no key.
   */
  keyOrigin: z.string().optional(),
  headers: z.record(z.string(), z.string()),
  /** Models the user picked for this provider; the first is the default. */
  models: z.array(z.string().min(1)),
  /** Per-model context window overrides set by the user. */
  contextWindowOverrides: z.record(z.string(), z.number().int().positive()),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type ProviderConfig = z.infer<typeof providerConfigSchema>;

/** What the app knows about a model (catalog entry or provider listing). */
export const modelInfoSchema = z.object({
  id: z.string().min(1),
  contextWindow: z.number().int().positive(),
  maxOutputTokens: z.number().int().positive(),
  hasVision: z.boolean(),
  hasTools: z.boolean(),
  hasReasoning: z.boolean(),
  encoding: z.enum(['o200k_base', 'cl100k_base', 'default']),
  /** USD per million tokens, when known. */
  pricing: z
    .object({
      input: z.number(),
      output: z.number(),
      /** Price of input tokens read from the provider's prompt cache, when it differs. */
      cachedInput: z.number().optional(),
    })
    .optional(),
  /**
   * The built-in model, computing in this browser: it gets the compact system prompt, whose text
   * stays the same all day so its key/value cache can be reused from one turn to the next.
   */
  runsInBrowser: z.boolean().optional(),
  /** True when the app guessed (unknown model): the UI shows a note. */
  isEstimate: z.boolean(),
  checkedAt: z.string().optional(),
});
export type ModelInfo = z.infer<typeof modelInfoSchema>;
