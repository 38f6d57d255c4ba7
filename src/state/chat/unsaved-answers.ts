import type { ChatMessageSimple } from '../../core/model';

/**
 * After a run that failed (storage full, say), its answers may still be stored as `streaming`:
 * the final save failed, and so did the worker's attempt to close them. Nothing streams into them
 * any more, so they are shown as interrupted (with Retry) rather than "Answering…" forever; the
 * next start's recovery stores that status once the storage accepts writes again.
 */
export function closeUnsavedAnswers(chain: ChatMessageSimple[], runAnswerIds: readonly string[]): ChatMessageSimple[] {
  return chain.map((message) =>
    message.role === 'assistant' && message.status === 'streaming' && runAnswerIds.includes(message.id)
      ? { ...message, status: 'interrupted' }
      : message,
  );
}
