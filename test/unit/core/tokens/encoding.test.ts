import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { encode as encodeO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TokenCounter } from '../../../../src/core/ports';
import {
  createTokenCounter,
  DEFAULT_BPE_ENCODING,
  loadEncoding,
  selectEncoding,
} from '../../../../src/core/tokens';

describe('token counting', () => {
  let counter: TokenCounter;
  beforeAll(async () => {
    counter = await createTokenCounter(['o200k_base', 'cl100k_base']);
  });

  it('counts "hello world" as 2 tokens in both encodings', () => {
    expect(counter.count('hello world', 'o200k_base')).toBe(2);
    expect(counter.count('hello world', 'cl100k_base')).toBe(2);
  });

  it.each([
    ['The quick brown fox jumps over the lazy dog.', 10, 10],
    ['Привет, как дела?', 6, 8],
    ['こんにちは世界', 2, 4],
    ['    def foo(x):\n        return x*2\n', 11, 11],
  ])('counts %j as %i tokens in o200k_base and %i in cl100k_base', (text, o200k, cl100k) => {
    expect(counter.count(text, 'o200k_base')).toBe(o200k);
    expect(counter.count(text, 'cl100k_base')).toBe(cl100k);
    // Cross-check against the library's own encoder.
    expect(encodeO200k(text)).toHaveLength(o200k);
    expect(encodeCl100k(text)).toHaveLength(cl100k);
  });

  it('counts an empty text as zero tokens', () => {
    expect(counter.count('')).toBe(0);
  });

  it('treats special-token strings in user text as plain text instead of throwing', () => {
    expect(counter.count('<|endoftext|>', 'o200k_base')).toBe(7);
  });

  it('counts with the default catch-all encoding when none is given', () => {
    const text = 'Bonjour, peux-tu m’aider avec ce tableau ?';
    expect(DEFAULT_BPE_ENCODING).toBe('o200k_base');
    expect(counter.count(text)).toBe(counter.count(text, 'o200k_base'));
    expect(counter.count(text, 'default')).toBe(counter.count(text, 'o200k_base'));
  });

  it('refuses to count with an encoding that was not loaded, rather than guess', async () => {
    const defaultOnly = await createTokenCounter();
    expect(() => defaultOnly.count('hello', 'cl100k_base')).toThrow(/cl100k_base was not loaded/);
  });

  it('loads each encoding once and shares it between counters', async () => {
    const first = loadEncoding('cl100k_base');
    const second = loadEncoding('cl100k_base');
    expect(first).toBe(second);
    expect((await first)('hello world')).toBe(2);
  });
});

describe('selectEncoding', () => {
  it.each([
    ['gpt-4o', 'o200k_base'],
    ['gpt-4o-mini-2024-07-18', 'o200k_base'],
    ['chatgpt-4o-latest', 'o200k_base'],
    ['gpt-4.1-nano', 'o200k_base'],
    ['o1', 'o200k_base'],
    ['o3-mini', 'o200k_base'],
    ['o4-mini', 'o200k_base'],
    ['gpt-5', 'o200k_base'],
    ['gpt-5.1-codex', 'o200k_base'],
    ['openai/gpt-4o', 'o200k_base'],
    ['gpt-4', 'cl100k_base'],
    ['gpt-4-turbo', 'cl100k_base'],
    ['gpt-3.5-turbo', 'cl100k_base'],
    ['claude-sonnet-4-5', 'default'],
    ['gemini-2.5-pro', 'default'],
    ['llama-3.3-70b-versatile', 'default'],
    ['mistral-large-latest', 'default'],
  ])('picks the encoding of %s as %s', (modelId, encoding) => {
    expect(selectEncoding(modelId)).toBe(encoding);
  });
});
