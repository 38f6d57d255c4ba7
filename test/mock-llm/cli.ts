// `npm run mock-llm`: the mock LLM server on a fixed port, for manual play with the app.

import { startMockLlm } from './server';

const DEFAULT_PORT = 8787;

function portFromEnv(): number {
  const raw = process.env.MOCK_LLM_PORT;
  if (raw === undefined || raw === '') return DEFAULT_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`MOCK_LLM_PORT must be a port number, got ${JSON.stringify(raw)}`);
  }
  return port;
}

function printUsage(url: string): void {
  console.log(`Mock LLM server listening on ${url}

Configure Carrel with any API key starting with "sk-" or "test-":
  OpenAI / OpenAI-compatible  base URL ${url}/v1
  Anthropic                   base URL ${url}/v1
  Gemini                      base URL ${url}/v1beta

By default every reply echoes your last message ("You said: …"). Script replies with:
  curl -X POST ${url}/__mock/scenarios -H 'content-type: application/json' \\
    -d '[{"kind":"text","text":"Hello from the mock","tokensPerSecond":20}]'
  curl -X POST ${url}/__mock/scenarios -H 'content-type: application/json' \\
    -d '{"default":{"kind":"replay","file":"anthropic-thinking.chunks.txt"}}'
Inspect: GET ${url}/__mock/requests, GET ${url}/__mock/state. Reset: POST ${url}/__mock/reset

Ctrl+C to stop.`);
}

const mock = await startMockLlm({ port: portFromEnv() });
printUsage(mock.url);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void mock.close().then(() => process.exit(0));
  });
}
