import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatMessageSimple } from '../../../../src/core/model';
import { createLiveAnswer } from '../../../../src/state/chat/answer-blocks';
import { buildChatItems, createChatItemsBuilder, type ChatItemsInput, type CompareGroup } from '../../../../src/state/chat/chat-items';
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

/** What the open chat goes through between two renders of its rows. */
type ChatStep =
  | { kind: 'older'; count: number }
  | { kind: 'turn'; count: number }
  | { kind: 'cut'; at: number }
  | { kind: 'edit'; at: number }
  | { kind: 'live'; count: number }
  | { kind: 'pending'; isOn: boolean }
  | { kind: 'compare'; isOn: boolean }
  | { kind: 'warning'; at: number };

const chatStep: fc.Arbitrary<ChatStep> = fc.oneof(
  fc.record({ kind: fc.constant('older' as const), count: fc.integer({ min: 0, max: 30 }) }),
  fc.record({ kind: fc.constant('turn' as const), count: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('edit' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('live' as const), count: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('pending' as const), isOn: fc.boolean() }),
  fc.record({ kind: fc.constant('compare' as const), isOn: fc.boolean() }),
  fc.record({ kind: fc.constant('warning' as const), at: fc.nat() }),
);

describe('createChatItemsBuilder', () => {
  it('after any run of changes, lists the rows a build from scratch lists', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20 }), fc.array(chatStep, { maxLength: 25 }), (initial, steps) => {
        let next = 0;
        // Questions and answers alternate; the parent links do not matter to the rows.
        const newMessages = (count: number): ChatMessageSimple[] =>
          Array.from({ length: count }, () => {
            const id = `m${next++}`;
            return next % 2 === 0 ? buildAssistantMessage(id, null) : buildUserMessage(id, null);
          });
        let input: ChatItemsInput = { chain: newMessages(initial), pendingUser: null, liveAnswers: [], compareGroup: null, warnings: {} };
        const build = createChatItemsBuilder();
        build(input);
        for (const step of steps) {
          const { chain } = input;
          const at = 'at' in step ? step.at % Math.max(1, chain.length) : 0;
          switch (step.kind) {
            case 'older':
              input = { ...input, chain: [...newMessages(step.count), ...chain] };
              break;
            case 'turn':
              input = { ...input, chain: [...chain, ...newMessages(step.count)] };
              break;
            case 'cut':
              input = { ...input, chain: chain.slice(0, at) };
              break;
            case 'edit': {
              const message = chain[at];
              if (message) input = { ...input, chain: chain.map((m) => (m === message ? { ...message } : m)) };
              break;
            }
            case 'live': {
              // Some live answers already stored (their stored copy wins), some new.
              const stored = chain.filter((m) => m.role === 'assistant').slice(-1);
              const fresh = Array.from({ length: step.count }, (_, index) => createLiveAnswer(`live-${next++}`, index, 'gpt'));
              input = { ...input, liveAnswers: [...stored.map((m) => createLiveAnswer(m.id, 0, 'gpt')), ...fresh] };
              break;
            }
            case 'pending':
              input = { ...input, pendingUser: step.isOn ? buildUserMessage(`pending-${next++}`, null) : null };
              break;
            case 'compare': {
              const answer = chain.find((m) => m.role === 'assistant');
              const group: CompareGroup | null =
                step.isOn && answer
                  ? { userMessageId: answer.parentId ?? '', answers: [createLiveAnswer(answer.id, 0, 'a'), createLiveAnswer('other', 1, 'b')] }
                  : null;
              input = { ...input, compareGroup: group };
              break;
            }
            case 'warning': {
              const message = chain[at];
              if (message) input = { ...input, warnings: { ...input.warnings, [message.id]: [`warning ${next++}`] } };
              break;
            }
          }
          expect(build(input)).toEqual(buildChatItems(input));
        }
      }),
    );
  });

  it('keeps the rows already built when older messages are put in front', () => {
    const build = createChatItemsBuilder();
    const chain = [buildUserMessage('u2', 'a1'), buildAssistantMessage('a2', 'u2')];
    const first = build({ chain, pendingUser: null, liveAnswers: [], compareGroup: null });
    const grown = build({ chain: [question, answer, ...chain], pendingUser: null, liveAnswers: [], compareGroup: null });
    expect(grown.map((item) => item.key)).toEqual(['u1', 'a1', 'u2', 'a2']);
    expect(grown[2]).toBe(first[0]);
    expect(grown[3]).toBe(first[1]);
  });
});

