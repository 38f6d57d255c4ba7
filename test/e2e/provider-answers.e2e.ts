import { expect, test } from './fixtures';

/**
 * How the chat labels what a provider sent back: complete answers that arrive in unusual
 * shapes, and failures told in words a person can act on.
 */

const KEY = 'test-e2e-answers';
const AI_SDK_WARNING = 'AI SDK Warning';

test.beforeEach(async ({ settings }) => {
  await settings.open();
});

test('a recorded Anthropic answer whose stream ends right after message_stop is complete', async ({ settings, chat, llm }) => {
  await settings.addProvider({ kind: 'anthropic', name: 'Recorded Anthropic', baseUrl: `${llm.url}/v1`, apiKey: KEY, model: 'claude-sonnet-4-5-20250929' });
  // The default answers the title request; the queued recording answers the question.
  llm.setScenario({ kind: 'text', text: 'Greeting' });
  llm.queueScenarios({ kind: 'replay', file: 'anthropic-text.sse' });
  await chat.newChat();
  await chat.send('Say hello');
  await expect(chat.lastAnswer()).toContainText('Hello there!');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
});

test('a turn writes no "AI SDK Warning" line to the console', async ({ page, settings, chat, llm }) => {
  const warnings: string[] = [];
  const collect = (message: { text(): string }): void => {
    if (message.text().includes(AI_SDK_WARNING)) warnings.push(message.text());
  };
  page.on('console', collect);
  page.on('worker', (worker) => worker.on('console', collect));
  await settings.addProvider({ kind: 'openai', name: 'Quiet OpenAI', baseUrl: `${llm.url}/v1`, apiKey: KEY, model: 'gpt-4o-mini' });
  llm.setScenario({ kind: 'text', text: 'Quiet answer.' });
  await chat.newChat();
  await chat.send('First question');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
  await chat.send('Second question');
  await expect(chat.lastAnswer()).toContainText('Quiet answer.');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
  // The instructions reached the provider, as the system message of each request.
  const generations = llm.requests().filter((request) => request.path === '/v1/chat/completions' && !request.isPreflight);
  expect(generations.length).toBeGreaterThanOrEqual(2);
  expect(JSON.stringify(generations[0]?.body)).toContain('"role":"system"');
  expect(warnings).toEqual([]);
});

test('a provider that answers a streaming request with one JSON body gives a complete answer', async ({ settings, chat, llm }) => {
  await settings.addProvider({ kind: 'openai-compatible', name: 'Plain server', baseUrl: `${llm.url}/v1`, apiKey: KEY, model: 'llama3.2' });
  llm.setScenario({ kind: 'text', text: 'The whole answer at once.', isPlainJson: true });
  await chat.newChat();
  await chat.send('Answer without streaming');
  await expect(chat.lastAnswer()).toContainText('The whole answer at once.');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
});

test('a 413 HTML page from a proxy is shown in words, not as markup', async ({ settings, chat, llm }) => {
  await settings.addProvider({ kind: 'openai', name: 'Proxied OpenAI', baseUrl: `${llm.url}/v1`, apiKey: KEY, model: 'gpt-4o-mini' });
  const page413 = `<!DOCTYPE html><html><head><title>413 Request Entity Too Large</title></head><body><center><h1>413 Request Entity Too Large</h1></center><hr><center>nginx</center>${'<p>padding</p>'.repeat(20_000)}</body></html>`;
  llm.setScenario({ kind: 'http-error', status: 413, body: page413, headers: { 'content-type': 'text/html' } });
  await chat.newChat();
  await chat.send('A question with a huge attachment');
  const error = chat.lastAnswer().getByTestId('answer-error');
  await expect(error).toContainText('The request was too large for Proxied OpenAI (HTTP 413). Remove large attachments');
  const shown = await error.innerText();
  expect(shown).not.toMatch(/<|Unexpected/);
  expect(shown.length).toBeLessThan(400);
});

test('a connection reset in the middle of an answer says the connection broke', async ({ settings, chat, llm }) => {
  await settings.addProvider({ kind: 'openai', name: 'Flaky OpenAI', baseUrl: `${llm.url}/v1`, apiKey: KEY, model: 'gpt-4o-mini' });
  llm.setScenario({ kind: 'hang', text: 'Half an ans', shouldReset: true });
  await chat.newChat();
  await chat.send('Tell me everything');
  const error = chat.lastAnswer().getByTestId('answer-error');
  await expect(error).toHaveText('The connection to Flaky OpenAI broke before the answer was complete. Check your network and try again.');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'error');
  // It broke mid-answer: the provider had started to send it.
  const generation = llm.requests().find((request) => request.path === '/v1/chat/completions' && !request.isPreflight);
  expect(generation?.streamedBody).toContain('"content":"Half"');
});
