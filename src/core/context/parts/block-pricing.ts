import type { ProviderKind } from '../../model';
import type { TokenCounter, TokenEncodingName } from '../../ports';
import { createTokenMeter, type TokenMeter } from '../token-meter';

/**
 * What pricing and rendering a chat block depends on beyond the message itself. Requests that
 * agree on all of it share one object, so a block priced for one request is valid for the next
 * (the history memo compares this object, nothing else, to reuse a message's blocks).
 */
export interface BlockPricing {
  meter: TokenMeter;
  providerKind: ProviderKind;
  hasVision: boolean;
  removeFromText: (text: string) => string;
  /** Whether `removeFromText` leaves any text, answered without running it when it can be. */
  hasTextAfterRemoval: (text: string) => boolean;
  /** Earlier turns send their reasoning back too (normally only the current turn's goes). */
  shouldSendPastReasoning: boolean;
}

export interface BlockPricingKey {
  counter: TokenCounter;
  encoding: TokenEncodingName;
  calibrationFactor: number | undefined;
  providerKind: ProviderKind;
  hasVision: boolean;
  /** The caller's remover, or undefined for the default one. */
  removeFromText: ((text: string) => string) | undefined;
  shouldSendPastReasoning: boolean;
}

interface SharedPricing {
  key: BlockPricingKey;
  pricing: BlockPricing;
}

/** Distinct pricings kept per counter (a model switch or two within a session). */
export const SHARED_PRICINGS_PER_COUNTER = 8;

const sharedByCounter = new WeakMap<TokenCounter, SharedPricing[]>();

function isSameKey(a: BlockPricingKey, b: BlockPricingKey): boolean {
  return (
    a.counter === b.counter &&
    a.encoding === b.encoding &&
    a.calibrationFactor === b.calibrationFactor &&
    a.providerKind === b.providerKind &&
    a.hasVision === b.hasVision &&
    a.removeFromText === b.removeFromText &&
    a.shouldSendPastReasoning === b.shouldSendPastReasoning
  );
}

/**
 * The pricing for `key`: the one an earlier request with the same key used, or a new one
 * (built by `create` with its own meter). Most recently used first; the oldest goes past
 * `SHARED_PRICINGS_PER_COUNTER`.
 */
export function sharePricing(
  key: BlockPricingKey,
  create: (meter: TokenMeter) => BlockPricing,
): BlockPricing {
  let shared = sharedByCounter.get(key.counter);
  if (shared === undefined) {
    shared = [];
    sharedByCounter.set(key.counter, shared);
  }
  const at = shared.findIndex((entry) => isSameKey(entry.key, key));
  const found = at >= 0 ? shared.splice(at, 1)[0] : undefined;
  const entry = found ?? {
    key: { ...key },
    pricing: create(createTokenMeter(key.counter, key.encoding, key.calibrationFactor, 'shared')),
  };
  shared.unshift(entry);
  shared.length = Math.min(shared.length, SHARED_PRICINGS_PER_COUNTER);
  return entry.pricing;
}
