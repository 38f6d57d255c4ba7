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

/** Loads an encoding once (lazily, on first use) and returns a synchronous counter for it. */
export function loadEncoding(name: TokenEncodingName): Promise<EncodingCounter> {
  const resolved = resolveEncoding(name);
  let pending = loadedEncodings.get(resolved);
  if (pending === undefined) {
    pending = importEncoding(resolved).then(
      (module): EncodingCounter =>
        (text) =>
          text.length === 0
            ? 0
            : module.countTokens(text, { disallowedSpecial: NO_DISALLOWED_SPECIAL }),
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
