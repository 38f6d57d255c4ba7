import { expect, test } from './fixtures';
import { AgentsPage } from './pages/agents-page';
import { OnboardingPage } from './pages/onboarding-page';

/** A long answer, so the chat's first turn is far above its last one. */
const FILLER = Array.from({ length: 24 }, (_, i) => `Point ${String(i + 1)} of a long list about gardening.`).join('\n\n');

test('an agent with search_chats cites a past chat, and the citation opens that chat at the message', async ({ page, chat, llm }) => {
  await new OnboardingPage(page).connectCustom({ baseUrl: `${llm.url}/v1`, model: 'gpt-4o-mini' });
  const agents = new AgentsPage(page);
  await agents.open();
  await agents.create({ name: 'Archivist', prompt: 'Use the user’s past chats.', tools: ['search_chats'] });
  await expect(agents.item('Archivist')).toContainText('search_chats');

  // A past chat: the venue early on (the model names the chat after it), then long answers.
  llm.queueScenarios(
    { kind: 'text', text: 'Then the Birchwood lodge it is: forty beds and a lake.' },
    { kind: 'text', text: 'Spring offsite venue' },
  );
  await chat.newChat();
  await chat.send('Which venue should we pick for the spring offsite?');
  await expect(chat.lastAnswer()).toContainText('Birchwood lodge');
  await expect(chat.sessionLinks().filter({ hasText: 'Spring offsite venue' })).toHaveCount(1);
  llm.queueScenarios({ kind: 'text', text: FILLER }, { kind: 'text', text: FILLER });
  await chat.send('Now tell me about gardening.');
  // The list is virtual: count its rows, not the answers it happens to render.
  await expect(chat.messageList()).toHaveAttribute('data-count', '4');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
  await chat.send('More gardening, please.');
  await expect(chat.messageList()).toHaveAttribute('data-count', '6');
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');
  const pastChatUrl = page.url();

  // A new chat with the agent: the model searches, the answer cites the past chat.
  llm.queueScenarios(
    { kind: 'tool-calls', calls: [{ id: 'call_chats', name: 'search_chats', arguments: { queries: ['Birchwood lodge'] } }] },
    { kind: 'text', text: 'You chose the Birchwood lodge [1].' },
  );
  await chat.newChat();
  await chat.agentPicker().selectOption({ label: 'Archivist' });
  await chat.send('Where was our offsite going to be?');
  await expect(chat.lastAnswer()).toContainText('You chose the Birchwood lodge', { timeout: 20_000 });
  await expect(chat.lastAnswer()).toHaveAttribute('data-status', 'complete');

  // The model read the past answer as a numbered document.
  const toolResults = llm
    .requests()
    .filter((r) => !r.isPreflight && r.path.endsWith('/chat/completions'))
    .map((r) => JSON.stringify(r.body))
    .filter((body) => body.includes('\\"document\\":1'));
  expect(toolResults.at(-1)).toContain('forty beds and a lake');

  const chip = chat.lastAnswer().getByRole('button', { name: 'Source 1: Spring offsite venue' });
  await expect(chip).toBeVisible();
  await page.screenshot({ path: 'test-results/screenshots/chat-history-citation-light-wide.png' });
  await chip.click();

  // The past chat opens at the cited answer, highlighted and in view, not at its end.
  await expect(page).toHaveURL(new RegExp(`${pastChatUrl.split('#')[1] ?? ''}/[^/]+$`));
  const focused = chat.messageList().locator('[data-focused="true"]');
  await expect(focused).toHaveCount(1);
  await expect(focused).toContainText('forty beds and a lake');
  await expect(focused).toBeInViewport();
  await expect(chat.answers().last()).not.toBeInViewport();
  await page.screenshot({ path: 'test-results/screenshots/chat-history-opened-light-wide.png' });
});
