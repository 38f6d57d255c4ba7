import type { ModelInfo } from '.';

/** One model as the catalogue knows it. */
export type CatalogEntry = Omit<ModelInfo, 'isEstimate'>;

/** A field-by-field fix to a model the package lists wrongly, and why. */
export interface CatalogCorrection extends Partial<Omit<CatalogEntry, 'id'>> {
  id: string;
  reason: string;
}

/** A model the package does not list yet, and why the app needs it. */
export interface CatalogAddition {
  entry: CatalogEntry;
  reason: string;
}

/**
 * Local corrections to the models.dev catalogue (model-catalog.data.ts). Each one must still
 * change what the package says; test/unit/scripts/model-catalog-data.test.ts says when a
 * package update made one unnecessary.
 */
/** models.dev rounds cached-input prices to whole cents; OpenAI lists them to the tenth of a cent. */
const unroundedCachePrice = (
  id: string,
  input: number,
  output: number,
  cachedInput: number,
): CatalogCorrection => ({
  id,
  reason: `models.dev rounds the cached-input price to cents; OpenAI lists $${cachedInput}`,
  pricing: { input, output, cachedInput },
});

export const CATALOG_CORRECTIONS: readonly CatalogCorrection[] = [
  unroundedCachePrice('gpt-4o-mini', 0.15, 0.6, 0.075),
  unroundedCachePrice('gpt-4.1-nano', 0.1, 0.4, 0.025),
  unroundedCachePrice('gpt-5', 1.25, 10, 0.125),
  unroundedCachePrice('gpt-5-mini', 0.25, 2, 0.025),
  unroundedCachePrice('gpt-5-nano', 0.05, 0.4, 0.005),
  unroundedCachePrice('o4-mini', 1.1, 4.4, 0.275),
  {
    id: 'gpt-3.5-turbo',
    reason:
      'it calls functions, and it has no prompt-cache price (models.dev lists one above the input price)',
    hasTools: true,
    pricing: { input: 0.5, output: 1.5 },
  },
  {
    id: 'grok-4',
    reason: 'xAI documents image input for Grok 4; models.dev lists text only',
    hasVision: true,
  },
  {
    id: 'deepseek-reasoner',
    reason: "DeepSeek caps the reasoner's output at 64K tokens; models.dev gives the whole window",
    maxOutputTokens: 65_536,
  },
];

/** A model that calls tools and counts with the generic tokenizer. */
const addModel = (
  reason: string,
  id: string,
  contextWindow: number,
  maxOutputTokens: number,
  flags: { hasVision: boolean; hasReasoning: boolean },
  pricing?: CatalogEntry['pricing'],
): CatalogAddition => ({
  reason,
  entry: {
    id,
    contextWindow,
    maxOutputTokens,
    ...flags,
    hasTools: true,
    encoding: 'default',
    ...(pricing ? { pricing } : {}),
  },
});

const THINKS_AND_SEES = { hasVision: true, hasReasoning: true };
const TEXT_ONLY = { hasVision: false, hasReasoning: false };

/** Models the package lacks. Prices are USD per million tokens, from the makers' price pages. */
export const CATALOG_ADDITIONS: readonly CatalogAddition[] = [
  addModel(
    'missing from the package: Claude Opus 4.5 (Nov 2025)',
    'claude-opus-4-5',
    200_000,
    64_000,
    THINKS_AND_SEES,
    {
      input: 5,
      output: 25,
      cachedInput: 0.5,
    },
  ),
  addModel(
    'missing from the package: Claude Sonnet 4.5 (Sep 2025)',
    'claude-sonnet-4-5',
    200_000,
    64_000,
    THINKS_AND_SEES,
    {
      input: 3,
      output: 15,
      cachedInput: 0.3,
    },
  ),
  addModel(
    'missing from the package: Claude Haiku 4.5 (Oct 2025)',
    'claude-haiku-4-5',
    200_000,
    64_000,
    THINKS_AND_SEES,
    {
      input: 1,
      output: 5,
      cachedInput: 0.1,
    },
  ),
  addModel(
    'the package lists only its preview; without it the id would take gemini-2.5-flash’s price',
    'gemini-2.5-flash-lite',
    1_048_576,
    65_536,
    THINKS_AND_SEES,
    { input: 0.1, output: 0.4 },
  ),
  addModel(
    'Ollama names Qwen3 by size (`qwen3:8b`); the package lists host ids only',
    'qwen3',
    32_768,
    8_192,
    {
      hasVision: false,
      hasReasoning: true,
    },
  ),
  addModel(
    'missing from the package: Llama 4 Maverick as OpenRouter and Together name it',
    'llama-4-maverick',
    1_000_000,
    8_192,
    {
      hasVision: true,
      hasReasoning: false,
    },
  ),
  addModel(
    'missing from the package: Llama 3.1 8B as OpenRouter and Together name it',
    'llama-3.1-8b-instruct',
    131_072,
    8_192,
    TEXT_ONLY,
  ),
  addModel(
    'missing from the package: Llama 3.1 70B as OpenRouter and Together name it',
    'llama-3.1-70b-instruct',
    131_072,
    8_192,
    TEXT_ONLY,
  ),
];

/** The package's catalogue with the corrections applied and the additions in. */
export function applyCatalogOverrides(
  source: readonly CatalogEntry[],
  corrections: readonly CatalogCorrection[] = CATALOG_CORRECTIONS,
  additions: readonly CatalogAddition[] = CATALOG_ADDITIONS,
): CatalogEntry[] {
  const fixes = new Map(corrections.map(({ reason: _reason, ...fix }) => [fix.id, fix]));
  return [
    ...source.map((entry) => ({ ...entry, ...fixes.get(entry.id) })),
    ...additions.map(({ entry }) => entry),
  ];
}
