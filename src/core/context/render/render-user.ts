import type { Attachment, LlmImagePart, LlmTextPart, UserMessage } from '../../model';
import { estimateImageTokens } from '../../tokens';
import type { Block, PartEnv } from '../parts/part';
import type { ContextMessage, RequiredPartName } from '../types';

export const FILES_PREFIX = 'The user attached the following files to their next message:';
export const EMPTY_USER_TEXT = '(The user sent the attached files without a message.)';

/** Explicit notices, so the model never guesses at a file it cannot read. */
export function describeUnreadableFile(attachment: Pick<Attachment, 'status' | 'error'>): string {
  switch (attachment.status) {
    case 'processing':
      return '[This file is still being processed; its text is not available yet. Do not guess its contents.]';
    case 'no_text':
      return '[No text could be extracted from this file (it may be a scan or empty). Do not guess its contents.]';
    case 'error':
      return `[This file could not be read${attachment.error ? `: ${attachment.error}` : ''}. Do not guess its contents.]`;
    case 'ready':
      return '[This file is empty.]';
  }
}

function hasReadableText(attachment: Attachment): attachment is Attachment & { text: string } {
  return (
    attachment.status === 'ready' && attachment.text !== undefined && attachment.text.length > 0
  );
}

/** All of a turn's files collapsed into one user message, each with a header and end marker. */
function renderFilesMessage(
  files: readonly Attachment[],
  env: PartEnv,
): { text: string; tokens: number } {
  const sections: string[] = [FILES_PREFIX];
  let contentTokens = 0;
  let framing = FILES_PREFIX;
  files.forEach((file, index) => {
    const number = index + 1;
    const header = `--- BEGIN FILE ${number}: ${file.name} (${file.mimeType}) ---`;
    const footer = `--- END FILE ${number}: ${file.name} ---`;
    if (hasReadableText(file)) {
      // Stored count: the file's text is never re-tokenized.
      contentTokens += file.tokenCount;
      sections.push(`${header}\n${file.text}\n${footer}`);
      framing += `\n${header}\n\n${footer}`;
    } else {
      const notice = describeUnreadableFile(file);
      sections.push(`${header}\n${notice}\n${footer}`);
      framing += `\n${header}\n${notice}\n${footer}`;
    }
  });
  return { text: sections.join('\n'), tokens: contentTokens + env.meter.countText(framing) };
}

function imageMarker(image: Attachment, reason: string): string {
  const size = image.image ? ` (${image.image.width}×${image.image.height})` : '';
  return `[Image attached: ${image.name}${size}. ${reason}]`;
}

function estimateAttachmentImage(image: Attachment, env: PartEnv): number {
  return image.image ? estimateImageTokens(env.input.providerKind, image.image) : image.tokenCount;
}

/**
 * A stored user message as blocks: its files (F) first, then the message (U) with its images.
 * F and U are separate blocks so an old file can be forgotten while its question stays.
 */
export function renderUserMessage(
  message: UserMessage,
  env: PartEnv,
  part: RequiredPartName,
  isRequired: boolean,
): Block[] {
  const blocks: Block[] = [];
  const files = message.attachments.filter((attachment) => attachment.kind === 'text');
  const images = message.attachments.filter((attachment) => attachment.kind === 'image');

  if (files.length > 0) {
    const rendered = renderFilesMessage(files, env);
    const fileMessage: ContextMessage = {
      kind: 'file',
      tokens: env.meter.priceMessage(rendered.tokens),
      message: { role: 'user', content: rendered.text },
      sourceId: message.id,
    };
    blocks.push({
      messages: [fileMessage],
      tokens: fileMessage.tokens,
      part,
      isRequired,
      isConversation: true,
      sourceId: message.id,
      files: files.map((file) => ({ fileId: file.fileId, name: file.name })),
    });
  }

  let text = message.text;
  let contentTokens = message.textTokenCount;
  if (text.trim().length === 0) {
    text = EMPTY_USER_TEXT;
    contentTokens = env.meter.countText(EMPTY_USER_TEXT);
  }
  const imageParts: LlmImagePart[] = [];
  const markers: string[] = [];
  for (const image of images) {
    const dataUrl = image.image?.dataUrl;
    if (!env.input.model.hasVision) {
      markers.push(imageMarker(image, 'This model cannot see images.'));
    } else if (dataUrl === undefined || image.status !== 'ready') {
      markers.push(imageMarker(image, 'The image data is not available.'));
    } else {
      imageParts.push({ type: 'image', image: dataUrl, mediaType: image.mimeType });
      contentTokens += estimateAttachmentImage(image, env);
    }
  }
  if (markers.length > 0) {
    const markerText = markers.join('\n');
    text = `${text}\n\n${markerText}`;
    contentTokens += env.meter.countText(`\n\n${markerText}`);
  }
  const textPart: LlmTextPart = { type: 'text', text };
  const userMessage: ContextMessage = {
    kind: 'user',
    tokens: env.meter.priceMessage(contentTokens),
    message: { role: 'user', content: imageParts.length > 0 ? [textPart, ...imageParts] : text },
    sourceId: message.id,
  };
  blocks.push({
    messages: [userMessage],
    tokens: userMessage.tokens,
    part,
    isRequired,
    isConversation: true,
    sourceId: message.id,
    files: [],
  });
  return blocks;
}
