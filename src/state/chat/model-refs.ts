/** Which model a choice names, and whether its provider runs on this machine. */
import { asProviderId, type ModelRef, type ProviderConfig } from '../../core/model';

export const sameModel = (a: ModelRef, b: ModelRef): boolean => a.providerId === b.providerId && a.modelId === b.modelId;

/** A provider running on this machine answers without the internet. */
export function isLocalProvider(provider: Pick<ProviderConfig, 'preset' | 'baseUrl'>): boolean {
  if (provider.preset === 'ollama' || provider.preset === 'lmstudio') return true;
  try {
    const host = new URL(provider.baseUrl).hostname;
    return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
  } catch {
    return false;
  }
}

const MODEL_SEPARATOR = '\u0000';

export function encodeModel(model: ModelRef | null): string {
  return model ? `${model.providerId}${MODEL_SEPARATOR}${model.modelId}` : '';
}

export function decodeModel(value: string): ModelRef | null {
  const [providerId, modelId] = value.split(MODEL_SEPARATOR);
  return providerId && modelId ? { providerId: asProviderId(providerId), modelId } : null;
}
