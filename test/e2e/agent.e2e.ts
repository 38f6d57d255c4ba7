import { expect, test } from './fixtures';
import { readRawRows } from './reliability/raw-rows';

test.describe('the agent loop in the browser', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.provider({ name: 'Mock', baseUrl: `${llm.url}/v1`, apiKey: 'sk-agent-e2e', model: 'gpt-4o-mini' }, { open: '/#/settings' });
  });

  test('a tool-using turn renders its tool block, then the answer', async ({ chat, llm }) => {
    llm.queueScenarios(
      { kind: 'tool-calls', calls: [{ id: 'call_1', name: 'launch_rockets', arguments: { count: 3 } }] },
      { kind: 'text', text: 'I cannot launch rockets, but here is a summary.' },
    );
    await chat.newChat();
    await chat.send('launch three rockets');

    const toolBlock = chat.lastAnswer().getByTestId('tool-block');
    await expect(toolBlock).toHaveAttribute('data-tool', 'launch_rockets');
    await expect(toolBlock).toHaveAttribute('data-status', 'error');
    await expect(chat.lastAnswer()).toContainText('here is a summary');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    // The second request carries the call and its result, so the model saw what happened.
    const generations = llm.requests().filter((r) => r.provider === 'openai' && !r.isPreflight && r.path.endsWith('/chat/completions'));
    const second = generations[1]?.body as { messages: Array<{ role: string; tool_calls?: unknown[]; content?: unknown }> };
    const roles = second.messages.map((m) => m.role);
    expect(roles.slice(-2)).toEqual(['assistant', 'tool']);
    expect(JSON.stringify(second.messages.at(-1)?.content)).toContain('no tool named');

    await toolBlock.locator('summary').click();
    await expect(toolBlock).toContainText('"count": 3');
  });

  test('closing the page mid-stream keeps the partial answer, shown as interrupted with Retry', async ({
    page,
    context,
    chat,
    llm,
  }) => {
    llm.setScenario({ kind: 'hang', text: 'The first part of a long answer' });
    await chat.newChat();
    await chat.send('write a long essay');
    await expect(chat.lastAnswer()).toContainText('The first part');
    await expect(page).toHaveURL(/#\/chat\/.+/);
    const chatUrl = page.url();
    // The checkpointer saves at most once a second: close the tab once the partial text is stored.
    await expect
      .poll(async () => (await readRawRows(page)).messages.some((message) => message.role === 'assistant' && message.text.includes('The first part of a long answer')))
      .toBe(true);
    await page.close();

    llm.setScenario({ kind: 'text', text: 'A complete essay this time.' });
    const reopened = await context.newPage();
    await reopened.goto(chatUrl);
    const answer = reopened.getByTestId('assistant-message').last();
    await expect(answer).toHaveAttribute('data-status', 'interrupted');
    await expect(answer).toContainText('The first part of a long answer');
    await expect(reopened.getByTestId('user-message')).toHaveText(['write a long essay']);

    await answer.getByRole('button', { name: 'Retry' }).click();
    await expect(reopened.getByTestId('assistant-message').last()).toContainText('A complete essay this time.');
    await expect(reopened.getByTestId('assistant-message').last()).toHaveAttribute('data-status', 'complete');
  });
});
