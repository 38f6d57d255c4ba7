import { describe, expect, it } from 'vitest';
import { asProviderId, type ProviderConfig } from '../../../src/core/model';
import { createRealClientAgent } from '../../reliability/support/real-client-agent';
import { readFixture } from './replay';

const GEMINI: ProviderConfig = {
  id: asProviderId('gemini'),
  name: 'Gemini',
  kind: 'google',
  preset: 'google',
  baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  apiKey: 'test-gemini-key',
  keyOrigin: 'https://generativelanguage.googleapis.com',
  headers: {},
  models: ['gemini-2.5-flash'],
  contextWindowOverrides: {},
  createdAt: 1,
  updatedAt: 1,
};

const FINAL_ANSWER =
  'data: {"candidates":[{"content":{"parts":[{"text":"It is noon."}],"role":"model"},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":4,"totalTokenCount":24}}\r\n\r\n';

describe('a multi-step turn with a Gemini thinking model', () => {
  it('sends the function call back with its thought signature', async () => {
    const bodies: string[] = [];
    const responses = [readFixture('gemini-thinking-function-call.sse'), FINAL_ANSWER];
    const agent = await createRealClientAgent({
      provider: GEMINI,
      llmDeps: {
        fetch: (_url, init) => {
          bodies.push(typeof init?.body === 'string' ? init.body : '');
          const body = responses.shift() ?? FINAL_ANSWER;
          return Promise.resolve(new Response(body, { headers: { 'content-type': 'text/event-stream' } }));
        },
      },
    });
    const turn = await agent.send('What time is it?');
    expect(turn.answer?.status).toBe('complete');
    const call = turn.answer?.steps[0]?.toolCalls[0];
    expect(call?.name).toBe('now');
    expect(JSON.stringify(call?.providerState)).toContain('CiIBVKhc7vB');
    // The second request (after the tool result) repeats the call with the same signature.
    const second = JSON.parse(bodies[1] ?? '{}') as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> };
    const modelTurn = second.contents.find((c) => c.role === 'model' && c.parts.some((p) => 'functionCall' in p));
    const functionCallPart = modelTurn?.parts.find((p) => 'functionCall' in p);
    expect(String(functionCallPart?.thoughtSignature)).toMatch(/^CiIBVKhc7vB/);
  });
});
