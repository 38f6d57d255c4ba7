import { describe, expect, it } from 'vitest';
import { createLlmClient } from '../../../src/llm';
import { buildProvider, buildRequest, collectEvents, streamChunks, summarizeEvents } from '../../unit/llm/replay';

const chunk = (text: string) => `data: {"choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}},"finish_reason":null}]}`;

async function streamText(body: string, pieceBytes: number) {
  const bytes = new TextEncoder().encode(body);
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += pieceBytes) pieces.push(bytes.slice(i, i + pieceBytes));
  const client = createLlmClient({
    fetch: () => Promise.resolve(new Response(streamChunks(pieces), { headers: { 'content-type': 'text/event-stream' } })),
  });
  return summarizeEvents(await collectEvents(client.stream(buildRequest(buildProvider('openai')), new AbortController().signal)));
}

describe('CR-only line ends (found by the malformed-stream fuzzer)', () => {
  it('keeps the last token of a cut-off stream whose frames end in a bare CR', async () => {
    const summary = await streamText(`${chunk('Hello')}\r\r${chunk(' world')}\r\r`, 7);
    expect(summary.text).toBe('Hello world');
    expect(summary.finish).toBe('interrupted');
  });

  it('does not add a line end inside a stream whose CRLF is split across reads', async () => {
    const body = `${chunk('a')}\r\n\r\n${chunk('b')}\r\n\r\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\r\n\r\ndata: [DONE]\r\n\r\n`;
    for (const pieceBytes of [1, 2, 3, 5, 64]) {
      const summary = await streamText(body, pieceBytes);
      expect(summary.text).toBe('ab');
      expect(summary.finish).toBe('stop');
    }
  });
});
