import { describe, expect, it } from 'vitest';
import { TestAgent } from '../../../fakes/test-agent';

describe('the worker’s token count for the composer', () => {
  it('counts text as the context engine does', async () => {
    const agent = await TestAgent.create();
    const text = 'How many tokens is this draft, with “quotes”, code `x += 1` and émojis 🙂?';
    expect(await agent.api.countTokens(text)).toEqual({ ok: true, value: agent.tokens.count(text) });
    expect(await agent.api.countTokens('')).toEqual({ ok: true, value: 0 });
  });

  it('counts a list of texts in one call, each as the context engine does, in order', async () => {
    const agent = await TestAgent.create();
    const texts = ['A first imported message.', '', 'Ein zweiter, mit Umlauten: äöü, und Code `let x = 1;`.'];
    expect(await agent.api.countTokensOfEach(texts)).toEqual({ ok: true, value: texts.map((text) => agent.tokens.count(text)) });
    expect(await agent.api.countTokensOfEach([])).toEqual({ ok: true, value: [] });
  });

  it('refuses a list holding anything but text with a clear error', async () => {
    const agent = await TestAgent.create();
    const result = await agent.api.countTokensOfEach(['fine', 3] as unknown as string[]);
    expect(result).toEqual({ ok: false, error: { code: 'invalid_request', message: 'Only a list of texts can be counted.' } });
  });

  it('refuses anything but text with a clear error', async () => {
    const agent = await TestAgent.create();
    const result = await agent.api.countTokens({ text: 'hello' } as unknown as string);
    expect(result).toEqual({ ok: false, error: { code: 'invalid_request', message: 'Only text can be counted.' } });
  });
});
