import type { TokenCounter, TokenEncodingName } from '../ports';

/** The BPE encodings we ship; `default` resolves to one of them. */
export type BpeEncodingName = Exclude<TokenEncodingName, 'default'>;

/**
 * The catch-all for models whose tokenizer we do not have. o200k_base is the newest OpenAI
 * vocabulary and lands closest to most current models; the calibration factor corrects the rest.
 */
export const DEFAULT_BPE_ENCODING: BpeEncodingName = 'o200k_base';

/**
 * Tokens a chat message costs beyond its content (role and separators). OpenAI documents 3 per
 * message plus 3 to prime the reply; 4 covers the other providers' framing closely enough.
 */
export const MESSAGE_OVERHEAD_TOKENS = 4;

const O200K_MODEL_PATTERN = /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|gpt-oss)/;
const CL100K_MODEL_PATTERN = /^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada)/;

/**
 * Picks the encoding for a model id. Provider prefixes such as `openai/` (OpenRouter) are
 * ignored so routed OpenAI models still get their real tokenizer.
 */
export function selectEncoding(modelId: string): TokenEncodingName {
  const bare = modelId.toLowerCase().split('/').pop() ?? '';
  if (O200K_MODEL_PATTERN.test(bare)) return 'o200k_base';
  if (CL100K_MODEL_PATTERN.test(bare)) return 'cl100k_base';
  return 'default';
}

export function resolveEncoding(name: TokenEncodingName): BpeEncodingName {
  return name === 'default' ? DEFAULT_BPE_ENCODING : name;
}

/** Counts tokens of one text with a loaded encoding. */
export type EncodingCounter = (text: string) => number;

interface EncodingModule {
  countTokens: (text: string, options?: { disallowedSpecial?: Set<string> }) => number;
}

// User text may contain strings such as "<|endoftext|>"; they are plain text to us, never
// special tokens, so nothing is disallowed (the library would throw otherwise).
const NO_DISALLOWED_SPECIAL = new Set<string>();

const loadedEncodings = new Map<BpeEncodingName, Promise<EncodingCounter>>();

function importEncoding(name: BpeEncodingName): Promise<EncodingModule> {
  // Literal specifiers so the bundler can split each ~1 MB rank file into its own lazy chunk.
  switch (name) {
    case 'o200k_base':
      return import('gpt-tokenizer/encoding/o200k_base');
    case 'cl100k_base':
      return import('gpt-tokenizer/encoding/cl100k_base');
  }
}

/**
 * BPE merging costs quadratic time in the length of one pre-token, and the pre-tokenizer keeps a
 * run of letters (or of punctuation) whole: 100 KB of letters without a space took 20 s to count,
 * 10 MB would freeze the worker for hours. Longer runs are counted in pieces of this many
 * characters, which over-counts such runs by about 1 % and leaves ordinary text exact.
 */
export const MAX_UNBROKEN_RUN_CHARS = 128;
const LETTER_PATTERN = /^[\p{L}\p{M}]/u;
const PUNCTUATION_PATTERN = /^[^\s\p{L}\p{N}]/u;
const LETTERS_AHEAD_PATTERN = /[\p{L}\p{M}]{1,4096}/uy;
const PUNCTUATION_AHEAD_PATTERN = /[^\s\p{L}\p{N}]{1,4096}/uy;

/** A character in a run of letters (marks count as letters). */
const IS_LETTER = 1;
/** A character in a run of punctuation: neither a space, a letter nor a digit (marks are both). */
const IS_PUNCTUATION = 2;

/** The two classes of each ASCII character, so ordinary text needs no Unicode lookup. */
const ASCII_CLASSES = Uint8Array.from({ length: 128 }, (_, code) => classOfChar(String.fromCharCode(code)));

function classOfChar(char: string): number {
  return (LETTER_PATTERN.test(char) ? IS_LETTER : 0) | (PUNCTUATION_PATTERN.test(char) ? IS_PUNCTUATION : 0);
}

/**
 * The first run of more than MAX_UNBROKEN_RUN_CHARS letters, or of punctuation, at or after
 * `from` (lengths in code points), and whether it starts with a letter. One pass over the text
 * with two run lengths: a regular expression asking for that many letters at every position
 * costs a few times the counting itself on ordinary prose.
 */
function findLongRun(text: string, from: number): { start: number; isLetters: boolean } | null {
  let letterStart = from;
  let letters = 0;
  let punctuationStart = from;
  let punctuation = 0;
  for (let at = from; at < text.length; ) {
    const code = text.charCodeAt(at);
    let width = 1;
    let kind: number;
    if (code < 128) kind = ASCII_CLASSES[code] as number;
    else {
      width = (text.codePointAt(at) as number) > 0xffff ? 2 : 1;
      kind = classOfChar(text.slice(at, at + width));
    }
    if (kind & IS_LETTER) {
      if (letters === 0) letterStart = at;
      if (++letters > MAX_UNBROKEN_RUN_CHARS) return { start: letterStart, isLetters: true };
    } else letters = 0;
    if (kind & IS_PUNCTUATION) {
      if (punctuation === 0) punctuationStart = at;
      if (++punctuation > MAX_UNBROKEN_RUN_CHARS) {
        // A run of marks is both: it counts as letters, as the first character decides.
        const first = text.slice(punctuationStart, punctuationStart + 2);
        return { start: punctuationStart, isLetters: LETTER_PATTERN.test(first) };
      }
    } else punctuation = 0;
    at += width;
  }
  return null;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function findRunEnd(text: string, start: number, isLetters: boolean): number {
  const pattern = isLetters ? LETTERS_AHEAD_PATTERN : PUNCTUATION_AHEAD_PATTERN;
  let end = start;
  for (;;) {
    pattern.lastIndex = end;
    const match = pattern.exec(text);
    if (match === null) return end;
    end += match[0].length;
  }
}

/** Counts `text`, cutting every run longer than MAX_UNBROKEN_RUN_CHARS into pieces. */
export function countInBoundedRuns(text: string, count: (piece: string) => number): number {
  let total = 0;
  let last = 0;
  for (;;) {
    const run = findLongRun(text, last);
    if (run === null) break;
    const start = run.start;
    const end = findRunEnd(text, start, run.isLetters);
    total += count(text.slice(last, start));
    let cut = start;
    while (cut < end) {
      let next = Math.min(end, cut + MAX_UNBROKEN_RUN_CHARS);
      // Never split a surrogate pair.
      if (next < end && isLowSurrogate(text.charCodeAt(next))) next++;
      total += count(text.slice(cut, next));
      cut = next;
    }
    last = end;
  }
  return total + count(text.slice(last));
}

/** Loads an encoding once (lazily, on first use) and returns a synchronous counter for it. */
export function loadEncoding(name: TokenEncodingName): Promise<EncodingCounter> {
  const resolved = resolveEncoding(name);
  let pending = loadedEncodings.get(resolved);
  if (pending === undefined) {
    pending = importEncoding(resolved).then(
      (module): EncodingCounter =>
        (text) =>
          countInBoundedRuns(text, (piece) =>
            piece.length === 0
              ? 0
              : module.countTokens(piece, { disallowedSpecial: NO_DISALLOWED_SPECIAL }),
          ),
    );
    loadedEncodings.set(resolved, pending);
  }
  return pending;
}

/**
 * Builds a synchronous TokenCounter once the requested encodings are loaded. The default
 * catch-all is always loaded. Counting with an encoding that was not requested throws, because
 * silently counting with another vocabulary would make every estimate quietly wrong.
 */
export async function createTokenCounter(
  encodings: readonly TokenEncodingName[] = ['default'],
): Promise<TokenCounter> {
  const names = new Set<BpeEncodingName>([DEFAULT_BPE_ENCODING, ...encodings.map(resolveEncoding)]);
  const counters = new Map<BpeEncodingName, EncodingCounter>();
  await Promise.all(
    [...names].map(async (name) => {
      counters.set(name, await loadEncoding(name));
    }),
  );
  return {
    count(text, encoding = 'default') {
      const resolved = resolveEncoding(encoding);
      const counter = counters.get(resolved);
      if (counter === undefined) {
        throw new Error(`Encoding ${resolved} was not loaded; pass it to createTokenCounter().`);
      }
      return counter(text);
    },
  };
}
