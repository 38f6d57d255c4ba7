import { expect, test } from './fixtures';

test.describe('merging compared answers', () => {
  test.beforeEach(async ({ settings, llm }) => {
    await settings.open();
    await settings.addProvider({ name: 'Mock A', baseUrl: `${llm.url}/v1`, apiKey: 'sk-merge-a', model: 'model-alpha' });
    await settings.addProvider({ name: 'Mock B', baseUrl: `${llm.url}/v1`, apiKey: 'sk-merge-b', model: 'model-beta' });
  });

  test('Merge asks a chosen model to combine the answers: a new branch that names its sources', async ({ page, chat, llm }) => {
    // The two requests race: either model may get either text.
    llm.queueScenarios(
      { kind: 'text', text: 'One view: tries win for prefix queries.' },
      { kind: 'text', text: 'Other view: hash maps win for exact keys.' },
    );
    await chat.newChat();
    await chat.addCompareModel();
    await chat.send('Trie or hash map?');
    await expect(chat.compareColumns()).toHaveCount(2);
    await expect(chat.compareView()).toHaveAttribute('data-live', 'false', { timeout: 20_000 });

    llm.queueScenarios({ kind: 'text', text: 'Merged: tries for prefixes, hash maps for exact keys.', chunkSize: 4, tokensPerSecond: 40 });
    const merge = page.getByRole('form', { name: 'Merge the answers' });
    await merge.getByLabel(/Merge the answers into one with/).selectOption({ label: 'model-beta · Mock B' });
    await merge.getByRole('button', { name: 'Merge' }).click();

    // It streams like any answer, then shows as the third answer to the question.
    await expect(chat.compareView()).toHaveCount(0);
    await expect(chat.lastAnswer()).toContainText('Merged: tries for prefixes', { timeout: 20_000 });
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
    const sources = chat.lastAnswer().getByTestId('fused-sources');
    await expect(sources).toHaveText(/Merged from\s+Answer 1 \(model-alpha\),\s+Answer 2 \(model-beta\)/);
    const answerRow = chat.lastAnswer();
    await expect(chat.branchLabel(answerRow)).toHaveText('3/3');
    await page.screenshot({ path: 'test-results/screenshots/merge-light-wide.png' });

    // The merging model read both answers under the question.
    const bodies = llm
      .requests()
      .filter((r) => r.path.endsWith('/chat/completions') && !r.isPreflight)
      .map((r) => JSON.stringify(r.body));
    const body = bodies.find((text) => text.includes('Merge their answers into one')) ?? '';
    expect(body).toContain('"model":"model-beta"');
    expect(body).toContain('One view: tries win for prefix queries.');
    expect(body).toContain('Other view: hash maps win for exact keys.');

    // ‹ › switches between the merged answer and the compared ones; a source opens its answer.
    await chat.previousBranch(answerRow);
    await expect(chat.branchLabel(chat.lastAnswer())).toHaveText('2/3');
    await expect(chat.lastAnswer().getByTestId('answer-model')).toHaveText('model-beta');
    await expect(chat.lastAnswer()).toContainText(/(One|Other) view/);
    await chat.nextBranch(chat.lastAnswer());
    await expect(chat.lastAnswer()).toContainText('Merged: tries for prefixes');
    await chat.lastAnswer().getByTestId('fused-sources').getByRole('button', { name: 'Answer 1 (model-alpha)' }).click();
    await expect(chat.branchLabel(chat.lastAnswer())).toHaveText('1/3');
    await expect(chat.lastAnswer().getByTestId('answer-model')).toHaveText('model-alpha');
  });

  test('a merge can be stopped like any answer', async ({ chat, llm, page }) => {
    llm.queueScenarios({ kind: 'text', text: 'Alpha answer.' }, { kind: 'text', text: 'Beta answer.' });
    await chat.newChat();
    await chat.addCompareModel();
    await chat.send('Two views, then one');
    await expect(chat.compareView()).toHaveAttribute('data-live', 'false', { timeout: 20_000 });

    llm.queueScenarios({ kind: 'hang', text: 'Merging so far' });
    await page.getByRole('form', { name: 'Merge the answers' }).getByRole('button', { name: 'Merge' }).click();
    await expect(chat.lastAnswer()).toContainText('Merging so far', { timeout: 20_000 });
    await chat.stop();
    await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'stopped');
    await expect(chat.lastAnswer().getByTestId('fused-sources')).toContainText('Answer 1 (model-alpha)');
  });
});
