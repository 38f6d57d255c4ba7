import type { ProviderPreset } from '../../core/model';
import { PROVIDER_PRESETS, type ProviderPresetInfo } from '../../core/model/provider-presets';

export interface OnboardingCard {
  info: ProviderPresetInfo;
  blurb: string;
  /** A model id that works on a fresh account or install, prefilled and editable. */
  suggestedModel: string;
  /** Local servers and custom endpoints need their address; cloud providers have a fixed one. */
  isBaseUrlAsked: boolean;
}

const card = (preset: ProviderPreset, blurb: string, suggestedModel: string): OnboardingCard => ({
  info: PROVIDER_PRESETS[preset],
  blurb,
  suggestedModel,
  isBaseUrlAsked: preset === 'custom' || preset === 'ollama' || preset === 'lmstudio',
});

/** The first screen's cards, in the order most people look for them. */
export const ONBOARDING_CARDS: readonly OnboardingCard[] = [
  card('openai', 'GPT models with your OpenAI key.', 'gpt-4o-mini'),
  card('anthropic', 'Claude models with your Anthropic key.', 'claude-3-5-haiku-latest'),
  card('google', 'Gemini models with a Google AI Studio key.', 'gemini-2.0-flash'),
  card('openrouter', 'Hundreds of models behind one key.', 'openai/gpt-4o-mini'),
  card('ollama', 'Models running on this computer. No key.', 'llama3.2'),
  card('lmstudio', 'The LM Studio local server. No key.', ''),
  card('custom', 'Any OpenAI-compatible endpoint.', ''),
];

/** What is missing before the form can connect, or '' when it is complete. */
export function findOnboardingProblem(card: OnboardingCard, values: { baseUrl: string; apiKey: string; model: string }): string {
  if (!URL.canParse(values.baseUrl.trim())) return 'Enter the server address (a URL such as http://localhost:8080/v1).';
  if (card.info.isKeyRequired && values.apiKey.trim() === '') return `Paste your ${card.info.name} API key.`;
  if (values.model.trim() === '') return 'Name the model to use.';
  return '';
}
