import { describe, expect, it } from 'vitest';
import { buildFusePrompt, selectFuseCandidates } from '../../../../src/core/agent/fuse-answers';
import { answerText, asMessageId, type AssistantMessage, type ModelRef } from '../../../../src/core/model';
import { createMessageStore } from '../../../../src/storage/message.store';
import { scripts } from '../../../fakes/scripted-llm-client';
import { TEST_PROVIDER_ID, TestAgent } from '../../../fakes/test-agent';

const ALPHA: ModelRef = { providerId: TEST_PROVIDER_ID, modelId: 'model-alpha' };
const BETA: ModelRef = { providerId: TEST_PROVIDER_ID, modelId: 'model-beta' };

function buildAnswer(id: string, text: string, overrides: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    id: asMessageId(id),
    sessionId: 's' as AssistantMessage['sessionId'],
    parentId: asMessageId('q'),
    role: 'assistant',
    steps: [{ text, textTokenCount: 1, toolCalls: [] }],
    status: 'complete',
    citations: [],
    isPinned: false,
    isExcluded: false,
    createdAt: 1,
    updatedAt: 1,
    ...overrides,
  };
}

describe('the fuse prompt', () => {
  it('puts the question and each answer, labelled with its model, before the instructions', () => {
    const prompt = buildFusePrompt('  Is a trie faster than a hash map?  ', [
      { messageId: asMessageId('a1'), model: ALPHA, text: 'For prefix queries, yes [1].' },
      { messageId: asMessageId('a2'), model: BETA, text: 'Usually not for exact lookups [2, 3].' },
      { messageId: asMessageId('a3'), text: 'It depends.' },
    ]);
    expect(prompt).toBe(
      [
        'Several assistants answered the same question. Merge their answers into one answer to the question.',
        '',
        '<question>\nIs a trie faster than a hash map?\n</question>',
        '',
        '<answer label="Answer 1 (model-alpha)">\nFor prefix queries, yes.\n</answer>\n\n' +
          '<answer label="Answer 2 (model-beta)">\nUsually not for exact lookups.\n</answer>\n\n' +
          '<answer label="Answer 3">\nIt depends.\n</answer>',
        '',
        'Write the single best answer to the question, in the language of the question:\n' +
          '- keep what is correct and useful from each answer, and drop repetition;\n' +
          '- where the answers disagree, say so briefly and give the view best supported;\n' +
          '- do not mention that you are merging answers, or name the assistants, unless the disagreement matters;\n' +
          '- the answers cited sources you cannot see: do not write citation numbers such as [1].',
      ].join('\n'),
    );
  });

  it('merges only answers with text that finished or were stopped', () => {
    const candidates = selectFuseCandidates([
      buildAnswer('a1', 'Complete.', { model: ALPHA }),
      buildAnswer('a2', 'Half an ans', { status: 'stopped' }),
      buildAnswer('a3', 'Broken', { status: 'error' }),
      buildAnswer('a4', '   '),
      buildAnswer('a5', 'Still going', { status: 'streaming' }),
    ]);
    expect(candidates).toEqual([
      { messageId: 'a1', model: ALPHA, text: 'Complete.' },
      { messageId: 'a2', text: 'Half an ans' },
    ]);
  });
});

describe('merging compared answers through the agent host', () => {
  async function compare() {
    const agent = await TestAgent.create();
    agent.scriptFor('model-alpha', scripts.text('Alpha says tries win for prefixes.'));
    agent.scriptFor('model-beta', scripts.text('Beta says hash maps win for exact keys.'));
    const turn = await agent.send('Trie or hash map?', { models: [ALPHA, BETA] });
    const questionId = turn.result.ok ? turn.result.value.userMessageId : '';
    const answerIds = turn.result.ok ? turn.result.value.assistantMessageIds : [];
    return { agent, questionId, answerIds };
  }

  it('answers the question again with the compared answers in front of the model, as a new branch naming its sources', async () => {
    const { agent, questionId, answerIds } = await compare();
    agent.scriptFor('model-beta', scripts.text('Tries for prefixes, hash maps for exact keys.'));
    const merged = await agent.send('', { models: [BETA], retryOf: questionId, fuseOf: answerIds });

    expect(merged.result.ok).toBe(true);
    const request = agent.llm.requests.at(-1);
    const last = JSON.stringify(request?.messages.at(-1)?.content);
    expect(last).toContain('Trie or hash map?');
    expect(last).toContain('Answer 1 (model-alpha)');
    expect(last).toContain('Alpha says tries win for prefixes.');
    expect(last).toContain('Answer 2 (model-beta)');
    expect(last).toContain('Beta says hash maps win for exact keys.');
    expect(request?.tools).toEqual([]);

    const answer = merged.answers[0];
    expect(answer && answerText(answer)).toBe('Tries for prefixes, hash maps for exact keys.');
    expect(answer?.fusedFrom).toEqual([
      { messageId: answerIds[0], model: ALPHA },
      { messageId: answerIds[1], model: BETA },
    ]);
    // A sibling of the compared answers, now the visible branch; the question is stored as asked.
    expect(merged.chain.map((m) => m.id)).toEqual([questionId, answer?.id]);
    expect(merged.chain[0]).toMatchObject({ role: 'user', text: 'Trie or hash map?' });
    const siblings = await createMessageStore(agent.db, agent.clock).children(merged.chain[0]?.sessionId as never, asMessageId(questionId));
    expect(siblings.map((m) => m.id)).toEqual([...answerIds, answer?.id]);
  });

  it('keeps a merge stopped midway as a stopped answer that still names its sources', async () => {
    const { agent, questionId, answerIds } = await compare();
    agent.scriptFor('model-alpha', scripts.hangAfter('Partly merged'));
    const merged = await agent.stopAfter(2).send('', { models: [ALPHA], retryOf: questionId, fuseOf: answerIds });
    expect(merged.answers[0]?.status).toBe('stopped');
    expect(merged.answers[0]?.fusedFrom?.map((source) => source.messageId)).toEqual(answerIds);
  });

  it('refuses to merge answers of another question', async () => {
    const { agent, answerIds } = await compare();
    agent.scriptFor('model-alpha', scripts.text('Second question answered.'));
    const other = await agent.send('Another question', { models: [ALPHA] });
    const otherQuestion = other.result.ok ? other.result.value.userMessageId : '';
    const refused = await agent.send('', { models: [ALPHA], retryOf: otherQuestion, fuseOf: answerIds });
    expect(refused.result).toMatchObject({ ok: false, error: { message: 'An answer to merge no longer exists.' } });
  });
});
