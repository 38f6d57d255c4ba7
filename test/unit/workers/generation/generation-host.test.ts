import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LocalGenerationRequest } from '../../../../src/workers/generation/generation.api';
import { createGenerationHost, selectSampling } from '../../../../src/workers/generation/generation-host';

const MODELS = `${join(import.meta.dirname, '../../../fixtures/models')}/`;
const TINY_CHAT = { modelId: 'carrel/tiny-chat', sourceUrl: 'http://127.0.0.1:1/models' };
const SENTENCE = 'Hello from the tiny built-in model. ';

function request(messages: LocalGenerationRequest['messages'], maxNewTokens = 24): LocalGenerationRequest {
  return { model: TINY_CHAT, messages, tools: [], maxNewTokens };
}

const newFlag = () => new Int32Array(new SharedArrayBuffer(4));

describe('the generation host on the tiny generated chat model', () => {
  it('streams the answer piece by piece and reports the token limit as the finish', async () => {
    const host = createGenerationHost({ localModelPath: MODELS });
    const pieces: string[] = [];
    const result = await host.generate(request([{ role: 'user', content: 'Hi' }], 16), newFlag(), (text) => pieces.push(text));
    expect(result.ok && result.value.finishReason).toBe('length');
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join('')).toMatch(/^Hello from the tiny built-in model\. Hello/);
    expect(result.ok && result.value.outputTokens).toBe(16);
  });

  it('stops within a token of the shared flag being set, keeping what was streamed', async () => {
    const host = createGenerationHost({ localModelPath: MODELS });
    const flag = newFlag();
    let streamed = '';
    let tokensAtStop = 0;
    const result = await host.generate(request([{ role: 'user', content: 'Hi' }], 400), flag, (text) => {
      streamed += text;
      if (streamed.length > 20 && tokensAtStop === 0) {
        tokensAtStop = streamed.split(/(?= )/).length;
        Atomics.store(flag, 0, 1);
      }
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.finishReason).toBe('stopped');
    expect(result.value.outputTokens).toBeLessThan(12);
    expect(SENTENCE.repeat(3).startsWith(streamed)).toBe(true);
  });

  it('reads only the new part of a follow-up prompt, reusing the previous turn\'s keys and values', async () => {
    const host = createGenerationHost({ localModelPath: MODELS });
    const first = [{ role: 'system' as const, content: 'Be brief.' }, { role: 'user' as const, content: 'Hi' }];
    let answer = '';
    const one = await host.generate(request(first, 9), newFlag(), (text) => (answer += text));
    const followUp = [...first, { role: 'assistant' as const, content: answer }, { role: 'user' as const, content: 'And then?' }];
    let second = '';
    const two = await host.generate(request(followUp, 9), newFlag(), (text) => (second += text));
    expect(one.ok && two.ok).toBe(true);
    if (!one.ok || !two.ok) return;
    expect(one.value.reusedPromptTokens).toBe(0);
    // Everything up to the end of the first answer comes from the cache.
    expect(two.value.reusedPromptTokens).toBeGreaterThanOrEqual(one.value.promptTokens + one.value.outputTokens - 1);
    expect(second).toBe(answer);
    // A different conversation shares only its system prompt's tokens with the cache.
    const other = await host.generate(request([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Other' }], 4), newFlag(), () => undefined);
    expect(other.ok && other.value.reusedPromptTokens).toBeLessThan(one.value.promptTokens);
    expect(other.ok && other.value.reusedPromptTokens).toBeGreaterThan(0);
  });
});

describe('sampling options for the built-in model', () => {
  it('decodes greedily when nothing is set, and for a temperature of 0', () => {
    expect(selectSampling({})).toEqual({ do_sample: false });
    expect(selectSampling({ temperature: 0, topP: 0.5 })).toEqual({ do_sample: false });
  });

  it('samples with the temperature and top-p the agent or chat set', () => {
    expect(selectSampling({ temperature: 0.7 })).toEqual({ do_sample: true, temperature: 0.7 });
    expect(selectSampling({ temperature: 0.7, topP: 0.9 })).toEqual({ do_sample: true, temperature: 0.7, top_p: 0.9 });
    expect(selectSampling({ topP: 0.8 })).toEqual({ do_sample: true, top_p: 0.8 });
  });

  it('treats a top-p of 1 alone as no sampling', () => {
    expect(selectSampling({ topP: 1 })).toEqual({ do_sample: false });
  });
});
