import {
  answerText,
  describeUnfinishedAnswer,
  type ChatMessageSimple,
  type Session,
} from '../../core/model';

/**
 * A session's visible chain as Markdown, for reading or pasting elsewhere. Not a backup:
 * branches, reasoning and tool results are left out, attachments are named.
 */
export function renderSessionMarkdown(
  session: Session,
  chain: readonly ChatMessageSimple[],
): string {
  const blocks = [`# ${session.title.trim() === '' ? 'Untitled chat' : session.title.trim()}`];
  for (const message of chain) {
    if (message.role === 'user') {
      const attachments = message.attachments
        .map((attachment) => `- 📎 ${attachment.name}`)
        .join('\n');
      blocks.push(
        ['## You', message.text, attachments].filter((part) => part.length > 0).join('\n\n'),
      );
    } else {
      const model = message.model === undefined ? '' : ` (${message.model.modelId})`;
      const unfinished = describeUnfinishedAnswer(message.status);
      const notice = unfinished === null ? '' : `_${unfinished}_`;
      const citations = message.citations
        .map((citation) => `[${citation.number}] ${citation.url ?? citation.title}`)
        .join('\n');
      blocks.push(
        [`## Assistant${model}`, answerText(message), notice, citations]
          .filter((part) => part.length > 0)
          .join('\n\n'),
      );
    }
  }
  return `${blocks.join('\n\n')}\n`;
}
