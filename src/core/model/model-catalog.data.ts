import type { ModelInfo } from '.';

/**
 * Well-known models. Prices are USD per million tokens (standard tier, short prompts).
 *
 * `checkedAt: CHECKED` marks entries whose numbers were taken from the providers' public model
 * and pricing pages and that we are confident of. Entries without `checkedAt` are best-effort
 * (values change often or differ per host): their window and output limits are on the safe
 * side and their price is left out rather than guessed. Match is by exact id, then by the
 * longest id that prefixes the requested one at a separator (see model-catalog.ts), so dated
 * snapshots like `gpt-4o-2024-08-06` resolve to their family.
 */
const CHECKED = '2026-11-21';

type CatalogEntry = Omit<ModelInfo, 'isEstimate'>;

const openai = (
  id: string,
  contextWindow: number,
  maxOutputTokens: number,
  flags: { hasVision: boolean; hasReasoning: boolean; encoding?: ModelInfo['encoding'] },
  pricing: ModelInfo['pricing'],
): CatalogEntry => ({
  id,
  contextWindow,
  maxOutputTokens,
  hasVision: flags.hasVision,
  hasTools: true,
  hasReasoning: flags.hasReasoning,
  encoding: flags.encoding ?? 'o200k_base',
  pricing,
  checkedAt: CHECKED,
});

const claude = (
  id: string,
  maxOutputTokens: number,
  hasReasoning: boolean,
  pricing: ModelInfo['pricing'],
): CatalogEntry => ({
  id,
  contextWindow: 200_000,
  maxOutputTokens,
  hasVision: true,
  hasTools: true,
  hasReasoning,
  encoding: 'default',
  pricing,
  checkedAt: CHECKED,
});

const gemini = (
  id: string,
  maxOutputTokens: number,
  hasReasoning: boolean,
  pricing: ModelInfo['pricing'],
): CatalogEntry => ({
  id,
  contextWindow: 1_048_576,
  maxOutputTokens,
  hasVision: true,
  hasTools: true,
  hasReasoning,
  encoding: 'default',
  pricing,
  checkedAt: CHECKED,
});

/** Open-weight and third-party models: limits vary by host, so no price and no date. */
const open = (
  id: string,
  contextWindow: number,
  maxOutputTokens: number,
  flags: { hasVision?: boolean; hasTools?: boolean; hasReasoning?: boolean } = {},
): CatalogEntry => ({
  id,
  contextWindow,
  maxOutputTokens,
  hasVision: flags.hasVision ?? false,
  hasTools: flags.hasTools ?? true,
  hasReasoning: flags.hasReasoning ?? false,
  encoding: 'default',
});

export const MODEL_CATALOG: readonly CatalogEntry[] = [
  // OpenAI
  openai(
    'gpt-4o',
    128_000,
    16_384,
    { hasVision: true, hasReasoning: false },
    { input: 2.5, output: 10, cachedInput: 1.25 },
  ),
  openai(
    'gpt-4o-mini',
    128_000,
    16_384,
    { hasVision: true, hasReasoning: false },
    { input: 0.15, output: 0.6, cachedInput: 0.075 },
  ),
  openai(
    'gpt-4.1',
    1_047_576,
    32_768,
    { hasVision: true, hasReasoning: false },
    { input: 2, output: 8, cachedInput: 0.5 },
  ),
  openai(
    'gpt-4.1-mini',
    1_047_576,
    32_768,
    { hasVision: true, hasReasoning: false },
    { input: 0.4, output: 1.6, cachedInput: 0.1 },
  ),
  openai(
    'gpt-4.1-nano',
    1_047_576,
    32_768,
    { hasVision: true, hasReasoning: false },
    { input: 0.1, output: 0.4, cachedInput: 0.025 },
  ),
  openai(
    'gpt-5',
    400_000,
    128_000,
    { hasVision: true, hasReasoning: true },
    { input: 1.25, output: 10, cachedInput: 0.125 },
  ),
  openai(
    'gpt-5-mini',
    400_000,
    128_000,
    { hasVision: true, hasReasoning: true },
    { input: 0.25, output: 2, cachedInput: 0.025 },
  ),
  openai(
    'gpt-5-nano',
    400_000,
    128_000,
    { hasVision: true, hasReasoning: true },
    { input: 0.05, output: 0.4, cachedInput: 0.005 },
  ),
  openai(
    'o1',
    200_000,
    100_000,
    { hasVision: true, hasReasoning: true },
    { input: 15, output: 60, cachedInput: 7.5 },
  ),
  openai(
    'o3',
    200_000,
    100_000,
    { hasVision: true, hasReasoning: true },
    { input: 2, output: 8, cachedInput: 0.5 },
  ),
  openai(
    'o3-pro',
    200_000,
    100_000,
    { hasVision: true, hasReasoning: true },
    { input: 20, output: 80 },
  ),
  openai(
    'o3-mini',
    200_000,
    100_000,
    { hasVision: false, hasReasoning: true },
    { input: 1.1, output: 4.4, cachedInput: 0.55 },
  ),
  openai(
    'o4-mini',
    200_000,
    100_000,
    { hasVision: true, hasReasoning: true },
    { input: 1.1, output: 4.4, cachedInput: 0.275 },
  ),
  openai(
    'gpt-4-turbo',
    128_000,
    4_096,
    { hasVision: true, hasReasoning: false, encoding: 'cl100k_base' },
    { input: 10, output: 30 },
  ),
  openai(
    'gpt-4',
    8_192,
    8_192,
    { hasVision: false, hasReasoning: false, encoding: 'cl100k_base' },
    { input: 30, output: 60 },
  ),
  openai(
    'gpt-3.5-turbo',
    16_385,
    4_096,
    { hasVision: false, hasReasoning: false, encoding: 'cl100k_base' },
    { input: 0.5, output: 1.5 },
  ),

  // Anthropic (every current model takes images and tools; 200k window)
  claude('claude-opus-4-5', 64_000, true, { input: 5, output: 25, cachedInput: 0.5 }),
  claude('claude-opus-4-1', 32_000, true, { input: 15, output: 75, cachedInput: 1.5 }),
  claude('claude-opus-4', 32_000, true, { input: 15, output: 75, cachedInput: 1.5 }),
  claude('claude-sonnet-4-5', 64_000, true, { input: 3, output: 15, cachedInput: 0.3 }),
  claude('claude-sonnet-4', 64_000, true, { input: 3, output: 15, cachedInput: 0.3 }),
  claude('claude-haiku-4-5', 64_000, true, { input: 1, output: 5, cachedInput: 0.1 }),
  claude('claude-3-7-sonnet', 64_000, true, { input: 3, output: 15, cachedInput: 0.3 }),
  claude('claude-3-5-sonnet', 8_192, false, { input: 3, output: 15, cachedInput: 0.3 }),
  claude('claude-3-5-haiku', 8_192, false, { input: 0.8, output: 4, cachedInput: 0.08 }),
  claude('claude-3-haiku', 4_096, false, { input: 0.25, output: 1.25, cachedInput: 0.03 }),

  // Google Gemini (prices for prompts up to 200k tokens)
  gemini('gemini-2.5-pro', 65_536, true, { input: 1.25, output: 10 }),
  gemini('gemini-2.5-flash', 65_536, true, { input: 0.3, output: 2.5 }),
  gemini('gemini-2.5-flash-lite', 65_536, true, { input: 0.1, output: 0.4 }),
  gemini('gemini-2.0-flash', 8_192, false, { input: 0.1, output: 0.4 }),
  gemini('gemini-2.0-flash-lite', 8_192, false, { input: 0.075, output: 0.3 }),

  // DeepSeek (prices changed several times in 2025: left out)
  open('deepseek-chat', 128_000, 8_192),
  open('deepseek-reasoner', 128_000, 32_768, { hasReasoning: true }),

  // xAI
  open('grok-4', 256_000, 16_384, { hasVision: true, hasReasoning: true }),
  open('grok-3', 131_072, 16_384),
  open('grok-3-mini', 131_072, 16_384, { hasReasoning: true }),

  // Mistral
  open('mistral-large', 128_000, 8_192),
  open('mistral-medium', 128_000, 8_192, { hasVision: true }),
  open('mistral-small', 128_000, 8_192, { hasVision: true }),
  open('codestral', 256_000, 8_192),
  open('pixtral-large', 128_000, 8_192, { hasVision: true }),

  // Llama, Qwen and friends as Groq / Together / OpenRouter name them
  open('llama-3.3-70b-versatile', 131_072, 32_768),
  open('llama-3.1-8b-instant', 131_072, 8_192),
  open('llama-3.3-70b-instruct', 131_072, 8_192),
  open('llama-3.1-8b-instruct', 131_072, 8_192),
  open('llama-3.1-70b-instruct', 131_072, 8_192),
  open('llama-4-maverick', 1_000_000, 8_192, { hasVision: true }),
  open('llama-4-scout', 327_680, 8_192, { hasVision: true }),
  open('qwen3', 32_768, 8_192, { hasReasoning: true }),
];
