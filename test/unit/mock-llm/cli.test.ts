import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../support/free-port';

/**
 * `npm run mock-llm`, the README's way to try the app without a key, run as a newcomer would:
 * it starts from the repository alone and streams an answer in each of the three protocols.
 */

let child: ChildProcess;
let url = '';


beforeAll(async () => {
  const port = await freePort();
  // Its own process group: npm starts tsx, which starts node, and ending npm alone leaves the
  // server running (and its port taken) after the tests.
  child = spawn('npm', ['run', '--silent', 'mock-llm'], {
    env: { ...process.env, MOCK_LLM_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1] !== undefined) {
        url = match[1];
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`mock-llm exited with ${code}:\n${output}`)));
  });
  expect(url).toBe(`http://127.0.0.1:${port}`);
}, 60_000);

afterAll(async () => {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGTERM');
  await exited;
  // The whole group ends: the server stops answering (its node process may outlive npm by a moment).
  await vi.waitFor(() => expect(fetch(url)).rejects.toThrow(), { timeout: 10_000, interval: 100 });
});

async function streamed(path: string, headers: Record<string, string>, body: unknown): Promise<string> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  return response.text();
}

/** The answer's text, put together from the streamed deltas of any of the three protocols. */
function answerText(stream: string): string {
  const pieces = [...stream.matchAll(/"(?:content|text)":("(?:[^"\\]|\\.)*")/g)];
  return pieces.map((match) => JSON.parse(match[1] ?? '""') as string).join('');
}

describe('npm run mock-llm', () => {
  it('streams an OpenAI chat completion', async () => {
    const text = await streamed(
      '/v1/chat/completions',
      { authorization: 'Bearer sk-try' },
      { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hello openai' }] },
    );
    expect(text).toContain('data: [DONE]');
    expect(answerText(text)).toContain('You said: hello openai');
  });

  it('streams an Anthropic message', async () => {
    const text = await streamed(
      '/v1/messages',
      { 'x-api-key': 'sk-try', 'anthropic-version': '2023-06-01' },
      { model: 'claude-sonnet-4-5', stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'hello anthropic' }] },
    );
    expect(text).toContain('event: message_stop');
    expect(answerText(text)).toContain('You said: hello anthropic');
  });

  it('streams a Gemini answer', async () => {
    const text = await streamed(
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
      { 'x-goog-api-key': 'sk-try' },
      { contents: [{ role: 'user', parts: [{ text: 'hello gemini' }] }] },
    );
    expect(text).toContain('finishReason');
    expect(answerText(text)).toContain('You said: hello gemini');
  });
});
