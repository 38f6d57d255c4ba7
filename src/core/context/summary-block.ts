import type { ChatMessageSimple, ChatSummary, MessageId } from '../model';
import { ConversationBlock, NO_FILES, type PricedMessage, type TokenMeter } from './parts/part';
import type { ContextMessage } from './types';

/** How a summary reads in the context: what it is, and that the messages it covers are not repeated. */
export function renderSummaryText(summary: Pick<ChatSummary, 'text' | 'coveredIds'>): string {
  const count = summary.coveredIds.length;
  return (
    `<conversation_summary>\nA summary of the earlier conversation (${count} ${count === 1 ? 'message' : 'messages'}, not repeated here):\n` +
    `${summary.text.trim()}\n</conversation_summary>`
  );
}

/**
 * The summary that stands in for the start of this chain: the newest one not undone whose last
 * message is in the history (before `endIndex`, the newest user message). A summary of another
 * branch names a message this chain does not hold, so it never applies here. Returns the index
 * of its last message too.
 */
export function findActiveSummary(
  conversation: readonly ChatMessageSimple[],
  summaries: readonly ChatSummary[] | undefined,
  endIndex: number = conversation.length,
): { summary: ChatSummary; lastIndex: number } | null {
  if (summaries === undefined || summaries.length === 0) return null;
  const indexById = new Map<MessageId, number>();
  for (let index = 0; index < endIndex; index++) {
    const message = conversation[index];
    if (message !== undefined) indexById.set(message.id, index);
  }
  let best: { summary: ChatSummary; lastIndex: number } | null = null;
  for (const summary of summaries) {
    if (summary.undoneAt !== undefined) continue;
    const lastIndex = indexById.get(summary.lastMessageId);
    if (lastIndex === undefined) continue;
    if (
      best === null ||
      lastIndex > best.lastIndex ||
      (lastIndex === best.lastIndex && summary.createdAt > best.summary.createdAt)
    )
      best = { summary, lastIndex };
  }
  return best;
}

/** The summary as one history block, in place of the messages it covers. */
export class SummaryBlock extends ConversationBlock {
  readonly tokens: number;
  readonly messageCount = 1;
  readonly sourceId: MessageId | undefined = undefined;
  readonly files = NO_FILES;
  readonly isUser = false;
  readonly isUpload = false;
  private readonly text: string;

  constructor(
    private readonly summary: ChatSummary,
    meter: TokenMeter,
  ) {
    super('history', false);
    this.text = renderSummaryText(summary);
    this.tokens = meter.priceMessage(meter.countText(this.text));
  }

  price(): PricedMessage[] {
    return [{ kind: 'summary', tokens: this.tokens }];
  }

  render(): ContextMessage[] {
    return [
      {
        kind: 'summary',
        tokens: this.tokens,
        message: { role: 'user', content: this.text },
        label: `stands for ${this.summary.coveredIds.length} earlier messages`,
        summaryOf: [...this.summary.coveredIds],
      },
    ];
  }
}
