import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMockLlm } from '../../mock-llm/server';
import type { MockLlm, RecordedRequest } from '../../mock-llm/server';

let mock: MockLlm;

beforeAll(async () => {
  mock = await startMockLlm();
});
afterAll(async () => {
  await mock.close();
});
beforeEach(() => mock.reset());

const llmRequest = (): RecordedRequest | undefined =>
  mock.requests().find((request) => request.scenario !== undefined);

function postOpenAi(signal?: AbortSignal): Promise<Response> {
  return fetch(`${mock.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      stream: true,
      messages: [{ role: 'user', content: 'count' }],
    }),
    ...(signal ? { signal } : {}),
  });
}

describe('streamedBody: what a stream had sent', () => {
  it('holds the whole event stream once it has finished', async () => {
    mock.setScenario({ kind: 'text', text: 'w1 w2 w3 ', chunkSize: 3 });
    const received = await (await postOpenAi()).text();
    await mock.waitForRequest((r) => r.scenario !== undefined && r.endedAt !== undefined);

    expect(llmRequest()?.streamedBody).toBe(received);
    expect(received).toContain('data: [DONE]');
  });

  it('holds only the frames written before the client went away', async () => {
    const text = Array.from({ length: 200 }, (_, i) => `w${String(i).padStart(3, '0')} `).join('');
    mock.setScenario({ kind: 'text', text, chunkSize: 5, tokensPerSecond: 100 });
    const controller = new AbortController();
    const response = await postOpenAi(controller.signal);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    const decoder = new TextDecoder();
    while (!seen.includes('w004 ')) {
      const { value } = await reader.read();
      seen += decoder.decode(value, { stream: true });
    }
    controller.abort();
    await mock.waitForClosed(2_000);

    const sent = llmRequest()?.streamedBody ?? '';
    const tokens = sent.match(/w\d{3} /g) ?? [];
    expect(tokens.slice(0, 5)).toEqual(['w000 ', 'w001 ', 'w002 ', 'w003 ', 'w004 ']);
    expect(tokens.length).toBeLessThan(200);
    expect(sent).not.toContain('[DONE]');
  });

  it('decodes a replay cut mid-character into whole text', async () => {
    // The fixture streams "亚" (3 bytes in UTF-8): 2-byte pieces always cut it.
    mock.setScenario({ kind: 'replay', file: 'openrouter-keepalive-comments.sse', chunkBytes: 2 });
    const received = await (await postOpenAi()).text();
    await mock.waitForRequest((r) => r.scenario !== undefined && r.endedAt !== undefined);

    expect(received).toContain('"content":"亚"');
    expect(llmRequest()?.streamedBody).toBe(received);
  });
});
