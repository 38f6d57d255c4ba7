import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/** Stored messages are counted once with the default tokenizer (o200k_base), as the app does. */
export function countStoredTokens(text: string): number {
  return text.length === 0 ? 0 : countTokens(text, { disallowedSpecial: new Set() });
}
