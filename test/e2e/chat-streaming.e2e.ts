import { expect, test } from './fixtures';

const API_KEY = 'sk-e2e-test-key';
const REPLY = 'Hello! I am the mock model, streaming this answer a few characters at a time.';
const TITLE = 'Greeting the mock model';

test.describe('one chat, end to end', () => {
  test.beforeEach(async ({ seed, llm }) => {
    await seed.provider({
      name: 'Mock OpenAI',
      baseUrl: `${llm.url}/v1`,
      apiKey: API_KEY,
      model: 'gpt-4o-mini',
    }, { open: '/#/settings' });
  });

  test('streams the reply token by token, saves the chat, and shows it again after a reload', async ({
    page,
    chat,
    llm,
  }) => {
    const reply = REPLY;
    llm.queueScenarios(
      // Slow enough (about 2.5 s in all) that a page busy on a loaded machine still sees it part-way.
      { kind: 'text', text: reply, chunkSize: 4, tokensPerSecond: 10 },
      // After the first answer the same model is asked for a short title.
      { kind: 'text', text: TITLE },
    );

    await chat.newChat();
    await chat.send('hello');
    await expect(chat.userMessages()).toHaveText(['hello']);

    // Partial text first, then the whole answer: it streamed rather than arriving at once.
    await expect(chat.lastAnswer()).toContainText('Hello!');
    await expect(chat.lastAnswer()).not.toContainText('at a time.');
    await expect(chat.lastAnswer()).toContainText(reply);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

    const request = await llm.waitForRequest();
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers['authorization']).toBe(`Bearer ${API_KEY}`);
    const body = request.body as { messages: Array<{ role: string; content: unknown }>; stream: boolean };
    expect(body.stream).toBe(true);
    expect(body.messages[0]?.role).toBe('system');
    expect(body.messages.at(-1)).toEqual({ role: 'user', content: 'hello' });

    await expect(page).toHaveURL(/#\/chat\/.+/);
    await expect(chat.sessionLinks()).toHaveText([TITLE]);

    await page.reload();
    await expect(chat.userMessages()).toHaveText(['hello']);
    await expect(chat.sessionLinks()).toHaveText([TITLE]);
    await expect(chat.lastAnswer()).toContainText(reply);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
  });

  test('a chat engine whose code failed to load is started again, and the question is answered', async ({
    page,
    chat,
    llm,
  }) => {
    llm.queueScenarios({ kind: 'text', text: REPLY }, { kind: 'text', text: TITLE });
    // The first fetch of the tokenizer's code is cut off, as a busy or just-offline page sees it.
    // A worker keeps a module that failed to load as failed, so only a fresh worker can answer.
    const fetched: string[] = [];
    await page.route(/\/assets\/o200k_base-[^/]*\.js$/, async (route) => {
      fetched.push(fetched.length === 0 ? 'aborted' : 'served');
      if (fetched.length === 1) await route.abort('aborted');
      else await route.continue();
    });
    await page.reload();
    await chat.newChat();
    await chat.send('hello');
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    await expect(chat.lastAnswer()).toContainText(REPLY);
    expect(fetched).toEqual(['aborted', 'served']);
  });

  test('someone who opens Settings while the first answer streams stays there, and the chat is saved', async ({
    page,
    chat,
    llm,
  }) => {
    llm.queueScenarios(
      { kind: 'text', text: REPLY, chunkSize: 4, tokensPerSecond: 25 },
      // A slow title: it shows in the sidebar well after the answer's run has ended in the page.
      { kind: 'text', text: TITLE, chunkSize: 2, tokensPerSecond: 8 },
    );

    await chat.newChat();
    await chat.send('hello');
    await expect(chat.lastAnswer()).toContainText('Hello!');
    await expect(page).toHaveURL(/#\/chat\/.+/);

    await page.getByRole('link', { name: 'Settings', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Settings', exact: true })).toBeVisible();
    // The run ends (answer saved, then titled) while Settings is open: nothing takes the person back.
    await expect(chat.sessionLinks()).toHaveText([TITLE]);
    await expect(page).toHaveURL(/#\/settings$/);
    await expect(page.getByRole('heading', { name: 'Settings', exact: true })).toBeVisible();

    await chat.sessionLinks().first().click();
    await expect(chat.lastAnswer()).toContainText(REPLY);
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
  });

  test('Stop keeps the partial answer marked stopped and closes the request', async ({ page, chat, llm }) => {
    llm.setScenario({ kind: 'hang', text: 'This answer will never finish' });

    await chat.newChat();
    await chat.send('tell me a long story');
    await expect(chat.lastAnswer()).toContainText('never finish');
    expect(llm.openStreams()).toBe(1);

    await chat.stop();
    await llm.waitForClosed();
    expect(llm.openStreams()).toBe(0);

    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'stopped');
    await expect(chat.lastAnswer()).toContainText('This answer will never finish');
    await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
    const closed = llm.requests().filter((r) => r.closedByClient);
    expect(closed).toHaveLength(1);

    // Nothing more arrives, and the stopped state is what was saved.
    await page.reload();
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'stopped');
    await expect(chat.lastAnswer()).toContainText('This answer will never finish');
    expect(llm.requests().filter((r) => r.provider === 'openai' && !r.isPreflight)).toHaveLength(1);
  });
});
