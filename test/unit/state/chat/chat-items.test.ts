import { describe, expect, it } from 'vitest';
import { createLiveAnswer } from '../../../../src/state/chat/answer-blocks';
import { buildChatItems } from '../../../../src/state/chat/chat-items';
import { buildAssistantMessage, buildUserMessage } from '../../storage/storage-fixtures';

const question = buildUserMessage('u1', null);
const answer = buildAssistantMessage('a1', 'u1');


describe('buildChatItems', () => {
  it('lists the stored chain as questions and answers, keyed by message id', () => {
    const items = buildChatItems({ chain: [question, answer], pendingUser: null, liveAnswers: [], compareGroup: null });
    expect(items.map((item) => [item.kind, item.key])).toEqual([
      ['user', 'u1'],
      ['answer', 'a1'],
    ]);
  });

  it('shows one live answer as a plain answer row after the pending question', () => {
    const pending = buildUserMessage('pending-1', 'a1');
    const items = buildChatItems({
      chain: [question, answer],
      pendingUser: pending,
      liveAnswers: [createLiveAnswer('a9', 0, 'gpt')],
      compareGroup: null,
    });
    expect(items.map((item) => item.kind)).toEqual(['user', 'answer', 'user', 'answer']);
    expect(items[2]).toMatchObject({ kind: 'user', isPending: true });
    expect(items[3]).toMatchObject({ kind: 'answer', isLive: true });
  });

  it('groups several live answers of one run into one compare row', () => {
    const items = buildChatItems({
      chain: [question],
      pendingUser: null,
      liveAnswers: [createLiveAnswer('x1', 0, 'model-a'), createLiveAnswer('x2', 1, 'model-b')],
      compareGroup: null,
    });
    expect(items).toHaveLength(2);
    expect(items[1]).toMatchObject({ kind: 'compare', isLive: true });
    const compare = items[1];
    expect(compare?.kind === 'compare' ? compare.answers.map((a) => a.modelLabel) : []).toEqual(['model-a', 'model-b']);
  });

  it('never lists a live answer twice once its stored copy is in the chain', () => {
    const items = buildChatItems({
      chain: [question, answer],
      pendingUser: null,
      liveAnswers: [createLiveAnswer('a1', 0, 'gpt')],
      compareGroup: null,
    });
    expect(items.filter((item) => item.kind === 'answer')).toHaveLength(1);
  });

  it('shows the saved answers of a compare run side by side in place of the visible answer', () => {
    const group = {
      userMessageId: 'u1',
      answers: [createLiveAnswer('a1', 0, 'model-a'), createLiveAnswer('a2', 1, 'model-b')],
    };
    const items = buildChatItems({ chain: [question, answer], pendingUser: null, liveAnswers: [], compareGroup: group });
    expect(items.map((item) => item.kind)).toEqual(['user', 'compare']);
    expect(items[1]).toMatchObject({ isLive: false });
  });

  it('ignores a compare group that belongs to a branch no longer shown', () => {
    const other = buildAssistantMessage('a3', 'u1');
    const group = { userMessageId: 'u1', answers: [createLiveAnswer('a1', 0, 'a'), createLiveAnswer('a2', 1, 'b')] };
    const items = buildChatItems({ chain: [question, other], pendingUser: null, liveAnswers: [], compareGroup: group });
    expect(items.map((item) => item.kind)).toEqual(['user', 'answer']);

  });
});
