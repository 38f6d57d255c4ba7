import type { ProviderKind, ProviderPreset } from '.';
import { isKeyRequired } from './provider-key';

/** What the settings screen needs to offer a provider, and what errors need to explain it. */
export interface ProviderPresetInfo {
  preset: ProviderPreset;
  name: string;
  kind: ProviderKind;
  /** Empty for `custom`: the user types the base URL. */
  defaultBaseUrl: string;
  isKeyRequired: boolean;
  /** Where to get a key, or how to run the server. */
  docsUrl: string;
  /** What to do when the browser blocks the request (shown with `cors` errors). */
  corsHint: string;
}

/** Providers that allow calls straight from a web page with a key need no setup. */
const CLOUD_CORS_HINT =
  'This provider normally accepts requests from web pages; a browser extension, proxy or firewall may be blocking it.';

export const PROVIDER_PRESETS: Readonly<Record<ProviderPreset, ProviderPresetInfo>> = {
  openai: withKeyRule({
    preset: 'openai',
    name: 'OpenAI',
    kind: 'openai',
    defaultBaseUrl: 'https://api.openai.com/v1',
    docsUrl: 'https://platform.openai.com/api-keys',
    corsHint: CLOUD_CORS_HINT,
  }),
  anthropic: withKeyRule({
    preset: 'anthropic',
    name: 'Anthropic',
    kind: 'anthropic',
    defaultBaseUrl: 'https://api.anthropic.com/v1',
    docsUrl: 'https://console.anthropic.com/settings/keys',
    corsHint:
      'Anthropic allows browser requests only with the anthropic-dangerous-direct-browser-access header (sent by Carrel) and not for organisations with zero-data-retention settings.',
  }),
  google: withKeyRule({
    preset: 'google',
    name: 'Google Gemini',
    kind: 'google',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    docsUrl: 'https://aistudio.google.com/apikey',
    corsHint: CLOUD_CORS_HINT,
  }),
  openrouter: withKeyRule({
    preset: 'openrouter',
    name: 'OpenRouter',
    kind: 'openai-compatible',
    defaultBaseUrl: 'https://openrouter.ai/api/v1',
    docsUrl: 'https://openrouter.ai/settings/keys',
    corsHint: CLOUD_CORS_HINT,
  }),
  groq: withKeyRule({
    preset: 'groq',
    name: 'Groq',
    kind: 'openai-compatible',
    defaultBaseUrl: 'https://api.groq.com/openai/v1',
    docsUrl: 'https://console.groq.com/keys',
    corsHint: CLOUD_CORS_HINT,
  }),
  mistral: withKeyRule({
    preset: 'mistral',
    name: 'Mistral',
    kind: 'openai-compatible',
    defaultBaseUrl: 'https://api.mistral.ai/v1',
    docsUrl: 'https://console.mistral.ai/api-keys',
    corsHint: CLOUD_CORS_HINT,
  }),
  deepseek: withKeyRule({
    preset: 'deepseek',
    name: 'DeepSeek',
    kind: 'openai-compatible',
    defaultBaseUrl: 'https://api.deepseek.com/v1',
    docsUrl: 'https://platform.deepseek.com/api_keys',
    corsHint: CLOUD_CORS_HINT,
  }),
  xai: withKeyRule({
    preset: 'xai',
    name: 'xAI',
    kind: 'openai-compatible',
    defaultBaseUrl: 'https://api.x.ai/v1',
    docsUrl: 'https://console.x.ai',
    corsHint: CLOUD_CORS_HINT,
  }),
  together: withKeyRule({
    preset: 'together',
    name: 'Together AI',
    kind: 'openai-compatible',
    defaultBaseUrl: 'https://api.together.xyz/v1',
    docsUrl: 'https://api.together.ai/settings/api-keys',
    corsHint: CLOUD_CORS_HINT,
  }),
  ollama: withKeyRule({
    preset: 'ollama',
    name: 'Ollama',
    kind: 'openai-compatible',
    defaultBaseUrl: 'http://localhost:11434/v1',
    docsUrl: 'https://github.com/ollama/ollama/blob/main/docs/faq.md',
    corsHint:
      'Check that Ollama is running, and allow this page: restart it with OLLAMA_ORIGINS set to this site (e.g. OLLAMA_ORIGINS="*" ollama serve).',
  }),
  lmstudio: withKeyRule({
    preset: 'lmstudio',
    name: 'LM Studio',
    kind: 'openai-compatible',
    defaultBaseUrl: 'http://localhost:1234/v1',
    docsUrl: 'https://lmstudio.ai/docs/app/api',
    corsHint:
      'Check that the LM Studio server is started, and turn on "Enable CORS" in its Developer › Server settings.',
  }),
  custom: withKeyRule({
    preset: 'custom',
    name: 'Custom endpoint',
    kind: 'openai-compatible',
    defaultBaseUrl: '',
    docsUrl: '',
    corsHint:
      'The server must answer CORS preflight requests from this site (Access-Control-Allow-Origin and Access-Control-Allow-Headers for authorization and content-type).',
  }),
  local: withKeyRule({
    preset: 'local',
    name: 'Built-in model',
    kind: 'local',
    defaultBaseUrl: 'https://huggingface.co',
    docsUrl: 'https://huggingface.co/HuggingFaceTB/SmolLM2-360M-Instruct',
    corsHint:
      'The model files come from the Hugging Face hub or your own folder, which must allow requests from this site (CORS).',
  }),
};

/** A preset's facts, with whether it needs a key as provider-key.ts decides it for requests. */
function withKeyRule(info: Omit<ProviderPresetInfo, 'isKeyRequired'>): ProviderPresetInfo {
  return { ...info, isKeyRequired: isKeyRequired(info.preset) };
}

export function getProviderPreset(preset: ProviderPreset): ProviderPresetInfo {
  return PROVIDER_PRESETS[preset];
}
