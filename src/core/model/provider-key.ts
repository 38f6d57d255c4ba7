import type { ProviderConfig, ProviderPreset } from './provider';

/**
 * An API key belongs to the origin it was entered for. These rules decide when it may be sent,
 * what an imported provider keeps, and how keys are kept out of stored and exported text.
 */

/** `https://api.openai.com` for `https://api.openai.com/v1`; undefined for a malformed URL. */
export function readOrigin(url: string): string | undefined {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/**
 * What a request may do with the provider's key: `none` (no key, none needed), `send`, `needed`
 * (a key is required and there is none), `wrong-origin` (the base URL no longer points to where
 * the key was entered: it must not go there).
 */
/** Presets whose servers take requests without a key: local servers, a custom endpoint, the built-in model. */
const KEYLESS_PRESETS: ReadonlySet<ProviderPreset> = new Set(['ollama', 'lmstudio', 'custom', 'local']);

/** Whether a provider of this preset needs a key before it is asked anything. */
export function isKeyRequired(preset: ProviderPreset): boolean {
  return !KEYLESS_PRESETS.has(preset);
}

export type KeyUse = 'none' | 'send' | 'needed' | 'wrong-origin';

export function decideKeyUse(
  provider: Pick<ProviderConfig, 'apiKey' | 'keyOrigin' | 'baseUrl'>,
  isKeyRequired: boolean,
): KeyUse {
  if (provider.apiKey === '') return isKeyRequired ? 'needed' : 'none';
  const origin = readOrigin(provider.baseUrl);
  return origin !== undefined && origin === provider.keyOrigin ? 'send' : 'wrong-origin';
}

/** A key typed for `baseUrl` now: bound to its origin (no key, no origin). */
export function bindKey(
  apiKey: string,
  baseUrl: string,
): Pick<ProviderConfig, 'apiKey' | 'keyOrigin'> {
  const origin = apiKey === '' ? undefined : readOrigin(baseUrl);
  return origin === undefined ? { apiKey } : { apiKey, keyOrigin: origin };
}

function sameHeaders(left: Record<string, string>, right: Record<string, string>): boolean {
  const leftKeys = Object.keys(left).sort();
  const rightKeys = Object.keys(right).sort();
  return (
    leftKeys.length === rightKeys.length &&
    leftKeys.every((key, index) => key === rightKeys[index] && left[key] === right[key])
  );
}

export interface ImportedProvider {
  provider: ProviderConfig;
  /** The stored key was not carried over: the backup changed where or how it would be sent. */
  isKeyDropped: boolean;
}

/**
 * The row to store when a backup's provider replaces `existing` (or is new). A backup that
 * carries its own key brings it bound to its own base URL. Otherwise the stored key stays only
 * while the backup keeps its origin and headers; a backup that changes either gets no key (so
 * it can never carry this device's key to a host the backup names) and says so.
 */
export function mergeImportedProvider(
  existing: ProviderConfig | undefined,
  incoming: ProviderConfig,
  hasApiKeys: boolean,
): ImportedProvider {
  const { keyOrigin: _ignored, ...rest } = incoming;
  if (hasApiKeys && incoming.apiKey !== '') {
    return {
      provider: { ...rest, ...bindKey(incoming.apiKey, incoming.baseUrl) },
      isKeyDropped: false,
    };
  }
  const keyless: ProviderConfig = { ...rest, apiKey: '' };
  if (existing === undefined || existing.apiKey === '')
    return { provider: keyless, isKeyDropped: false };
  const isSameDestination =
    existing.keyOrigin !== undefined &&
    readOrigin(incoming.baseUrl) === existing.keyOrigin &&
    sameHeaders(existing.headers, incoming.headers);
  if (!isSameDestination) return { provider: keyless, isKeyDropped: true };
  return {
    provider: { ...rest, apiKey: existing.apiKey, keyOrigin: existing.keyOrigin },
    isKeyDropped: false,
  };
}

/** Shorter keys are placeholders ("ollama", "none") that would blank ordinary words. */
export const MIN_REDACTED_KEY_LENGTH = 8;
export const REDACTED_KEY = '[API key removed]';

/** The secrets to keep out of text (keys, header values): those long enough to be one. */
export function collectSecrets(values: readonly string[]): string[] {
  const trimmed = values.map((value) => value.trim());
  return [...new Set(trimmed.filter((value) => value.length >= MIN_REDACTED_KEY_LENGTH))].sort(
    (left, right) => right.length - left.length,
  );
}

/** The text with every secret replaced by REDACTED_KEY (longest first, so none leaves a tail). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_REDACTED_KEY_LENGTH && result.includes(secret)) {
      result = result.split(secret).join(REDACTED_KEY);
    }
  }
  return result;
}

/** A JSON-like value with every string redacted; other values are returned as they are. */
export function redactSecretsDeep<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const visit = (node: unknown): unknown => {
    if (typeof node === 'string') return redactSecrets(node, secrets);
    if (Array.isArray(node)) return node.map(visit);
    if (
      typeof node === 'object' &&
      node !== null &&
      Object.getPrototypeOf(node) === Object.prototype
    ) {
      return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, visit(child)]));
    }
    return node;
  };
  return visit(value) as T;
}
