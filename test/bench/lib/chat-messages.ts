import { asMessageId, asSessionId, type ChatMessageSimple } from '../../../src/core/model';

/**
 * A straight chat for the storage benches: questions and answers in turn, each the child of the
 * one before, with the text `textFor` gives each position. Token counts are stored values here;
 * their exact size does not change the I/O.
 */
export function buildChatMessages(
  sessionId: string,
  count: number,
  start: number,
  textFor: (index: number) => string,
  answerExtras: (index: number, tokens: number) => Partial<ChatMessageSimple> = () => ({}),
): ChatMessageSimple[] {
  return Array.from({ length: count }, (_, index): ChatMessageSimple => {
    const base = {
      id: asMessageId(`${sessionId}-m${index}`),
      sessionId: asSessionId(sessionId),
      parentId: index === 0 ? null : asMessageId(`${sessionId}-m${index - 1}`),
      createdAt: start + index,
      updatedAt: start + index,
      isPinned: false,
      isExcluded: false,
    };
    const text = textFor(index);
    const tokens = Math.ceil(text.length / 4);
    return index % 2 === 0
      ? { ...base, role: 'user', text, textTokenCount: tokens, attachments: [] }
      : ({
          ...base,
          role: 'assistant',
          steps: [{ text, textTokenCount: tokens, toolCalls: [] }],
          status: 'complete',
          citations: [],
          ...answerExtras(index, tokens),
        } as ChatMessageSimple);
  });
}
