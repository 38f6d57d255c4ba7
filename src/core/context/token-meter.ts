import type { TokenCounter, TokenEncodingName } from '../ports';
import { applyCalibration, MESSAGE_OVERHEAD_TOKENS, NEUTRAL_CALIBRATION_FACTOR } from '../tokens';

/** Counts per request what has no stored count (S, CA, P, R, markers), and prices messages. */
export interface TokenMeter {
  /** Tokens of a text, with the model's encoding. */
  countText(text: string): number;
  /** Tokens of a whole message from its content tokens: overhead added, calibration applied. */
  priceMessage(contentTokens: number): number;
}

/**
 * Characters of text whose counts are remembered per counter and encoding. The texts the engine
 * counts (system prompt, file framings, markers, the forgotten-files note) mostly come back
 * unchanged every cycle of every turn; a few megabytes of keys at most.
 */
export const COUNT_MEMO_MAX_CHARS = 1_000_000;
/** Longer texts are counted every time rather than push the rest out of the memo. */
export const COUNT_MEMO_MAX_TEXT_CHARS = 100_000;

/** Text → token count, least recently used out first once the keys exceed `maxChars`. */
export interface CountMemo {
  get(text: string): number | undefined;
  set(text: string, count: number): void;
  readonly size: number;
}

export function createCountMemo(maxChars: number): CountMemo {
  const counts = new Map<string, number>();
  let chars = 0;
  return {
    get(text) {
      const count = counts.get(text);
      if (count !== undefined) {
        // Map keeps insertion order: re-inserting marks the text as recently used.
        counts.delete(text);
        counts.set(text, count);
      }
      return count;
    },
    set(text, count) {
      if (text.length > maxChars || counts.has(text)) return;
      counts.set(text, count);
      chars += text.length;
      for (const oldest of counts.keys()) {
        if (chars <= maxChars) break;
        counts.delete(oldest);
        chars -= oldest.length;
      }
    },
    get size() {
      return counts.size;
    },
  };
}

// Keyed by the counter itself: a worker keeps one for its life, so the memo lives as long as
// the counts it holds are valid, and goes with it.
const memos = new WeakMap<TokenCounter, Map<TokenEncodingName, CountMemo>>();

function memoFor(counter: TokenCounter, encoding: TokenEncodingName): CountMemo {
  let byEncoding = memos.get(counter);
  if (byEncoding === undefined) {
    byEncoding = new Map();
    memos.set(counter, byEncoding);
  }
  let memo = byEncoding.get(encoding);
  if (memo === undefined) {
    memo = createCountMemo(COUNT_MEMO_MAX_CHARS);
    byEncoding.set(encoding, memo);
  }
  return memo;
}

/**
 * Counts what has no stored count with the model's encoding, each distinct text once per
 * counter, and prices messages: overhead added, the model's calibration factor applied.
 */
export function createTokenMeter(
  counter: TokenCounter,
  encoding: TokenEncodingName,
  calibrationFactor = NEUTRAL_CALIBRATION_FACTOR,
  lifetime: 'request' | 'shared' = 'request',
): TokenMeter {
  const memo = memoFor(counter, encoding);
  // Placeholders repeat hundreds of times in one request: a plain map in front of the memo
  // spares its recency bookkeeping. A meter shared across requests goes to the bounded memo
  // only, so it never holds more than the memo does.
  const seen = lifetime === 'request' ? new Map<string, number>() : null;
  return {
    countText(text) {
      let count = seen?.get(text);
      if (count !== undefined) return count;
      count = memo.get(text);
      if (count === undefined) {
        count = counter.count(text, encoding);
        if (text.length <= COUNT_MEMO_MAX_TEXT_CHARS) memo.set(text, count);
      }
      seen?.set(text, count);
      return count;
    },
    priceMessage: (contentTokens) =>
      applyCalibration(contentTokens + MESSAGE_OVERHEAD_TOKENS, calibrationFactor),
  };
}
