import { providerPresetSchema, readOrigin, type ProviderConfig, type ProviderKind, type ProviderPreset } from '../../core/model';
import { PROVIDER_PRESETS } from '../../core/model/provider-presets';
import { err, ok, type Result } from '../../util/result';
import { formatHeaderLines, parseHeaderLines } from './header-lines';

/**
 * The order of the preset picker: the big clouds, the OpenAI-compatible clouds, local, custom;
 * the schema's own order, so a new preset cannot be forgotten here.
 */
// The built-in model is offered on its own (first run, Settings), not as an endpoint to fill in.
export const PRESET_ORDER: readonly ProviderPreset[] = providerPresetSchema.options.filter((preset) => preset !== 'local');

/** Characters of a key shown at each end; the middle is never rendered. */
const KEY_VISIBLE_CHARS = 4;
/** Keys shorter than this are shown fully masked: their ends would give away too much. */
const MIN_KEY_LENGTH_TO_SHOW_ENDS = 12;
/** A context window below this is a typo (even tiny local models take a few thousand). */
const MIN_CONTEXT_WINDOW = 512;

/** What the provider form edits, as typed. */
export interface ProviderDraft {
  preset: ProviderPreset;
  kind: ProviderKind;
  name: string;
  baseUrl: string;
  apiKey: string;
  /** Extra headers, one `Name: value` per line (custom endpoints). */
  headersText: string;
  /** Models to enable, separated by commas or new lines; the first is the default. */
  modelsText: string;
}

/** The checked form, ready to be stored. */
export interface ProviderFields {
  preset: ProviderPreset;
  kind: ProviderKind;
  name: string;
  baseUrl: string;
  apiKey: string;
  headers: Record<string, string>;
  models: string[];
}

export function createProviderDraft(preset: ProviderPreset): ProviderDraft {
  const info = PROVIDER_PRESETS[preset];
  return {
    preset,
    kind: info.kind,
    name: '',
    baseUrl: info.defaultBaseUrl,
    apiKey: '',
    headersText: '',
    modelsText: '',
  };
}

/** A stored provider as a draft, for its edit form. */
export function toProviderDraft(provider: ProviderFields): ProviderDraft {
  return {
    preset: provider.preset,
    kind: provider.kind,
    name: provider.name,
    baseUrl: provider.baseUrl,
    apiKey: provider.apiKey,
    headersText: formatHeaderLines(provider.headers),
    modelsText: provider.models.join(', '),
  };
}

export function parseModelList(text: string): string[] {
  const models = text
    .split(/[,\n]/)
    .map((model) => model.trim())
    .filter((model) => model !== '');
  return [...new Set(models)];
}

/** Checks the form; the error is a sentence the form shows as is. */
export function validateProviderDraft(draft: ProviderDraft): Result<ProviderFields, string> {
  const info = PROVIDER_PRESETS[draft.preset];
  const baseUrl = draft.baseUrl.trim().replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return err('The base URL is not a valid URL (e.g. http://localhost:11434/v1).');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return err('The base URL must start with https:// or http://.');
  }
  if (url.username || url.password) {
    return err('Put credentials in the API key or a header, not in the base URL.');
  }
  const apiKey = draft.apiKey.trim();
  if (info.isKeyRequired && apiKey === '') {
    return err(`${info.name} needs an API key.`);
  }
  const headers = parseHeaderLines(draft.headersText);
  if (!headers.ok) return headers;
  const models = parseModelList(draft.modelsText);
  if (models.length === 0) {
    return err('Enter the model to use, e.g. gpt-4o-mini or llama3.2 (Test connection lists them).');
  }
  return ok({
    preset: draft.preset,
    // Presets fix the protocol; only a custom endpoint may speak another one.
    kind: draft.preset === 'custom' ? draft.kind : info.kind,
    name: draft.name.trim() || info.name,
    baseUrl,
    apiKey,
    headers: headers.value,
    models,
  });
}

/**
 * The edit form keeps the stored key when its key field is left empty. That key goes only to the
 * origin it was entered for, so moving the base URL to another origin needs the key typed again.
 */
export function findKeyOriginProblem(
  provider: Pick<ProviderConfig, 'apiKey' | 'keyOrigin'>,
  draft: Pick<ProviderDraft, 'apiKey' | 'baseUrl'>,
): string | undefined {
  if (draft.apiKey.trim() !== '' || provider.apiKey === '') return undefined;
  if (readOrigin(draft.baseUrl.trim()) === provider.keyOrigin) return undefined;
  return `Enter the API key again for the new address: the stored key was entered for ${provider.keyOrigin ?? 'another address'} and is only sent there.`;
}

/** `sk-proj-abcd…wxyz`-style: enough to recognise a key, never enough to use it. */
export function maskApiKey(apiKey: string): string {
  if (apiKey === '') return 'no key';
  if (apiKey.length < MIN_KEY_LENGTH_TO_SHOW_ENDS) return '••••••••';
  return `${apiKey.slice(0, KEY_VISIBLE_CHARS)}••••${apiKey.slice(-KEY_VISIBLE_CHARS)}`;
}

/** An override as typed: empty removes it. */
export function parseContextWindowOverride(text: string): Result<number | null, string> {
  const trimmed = text.trim().replace(/[_,\s]/g, '');
  if (trimmed === '') return ok(null);
  const value = Number(trimmed);
  if (!Number.isInteger(value) || value < MIN_CONTEXT_WINDOW) {
    return err(`Enter a whole number of tokens, at least ${MIN_CONTEXT_WINDOW} (e.g. 32768).`);
  }
  return ok(value);
}

/** A model id of each kind, for the Models field's placeholder. */
const EXAMPLE_MODELS: Readonly<Record<ProviderKind, string>> = {
  openai: 'gpt-4o-mini',
  'openai-compatible': 'llama-3.1-8b-instruct',
  anthropic: 'claude-3-5-haiku-latest',
  google: 'gemini-2.0-flash',
  local: 'the built-in model',
};

export function describeModelsField(kind: ProviderKind): string {
  return `${EXAMPLE_MODELS[kind]} (several: separate with commas)`;
}

/** "1 model", "3 models". */
export function countModels(count: number): string {
  return `${count} ${count === 1 ? 'model' : 'models'}`;
}

/** The preset's name, and what the page says under the picker. */
export function describePreset(preset: ProviderPreset): { name: string; hint: string } {
  const info = PROVIDER_PRESETS[preset];
  const hint =
    preset === 'custom'
      ? 'Any server speaking the OpenAI, Anthropic or Gemini API. ' + info.corsHint
      : info.isKeyRequired
        ? `Needs an API key${info.docsUrl ? ` (${info.docsUrl})` : ''}.`
        : `Runs on your computer; no key needed. ${info.corsHint}`;
  return { name: info.name, hint };
}
