import type { Attachment, LlmImagePart, LlmTextPart, MessageId, UserMessage } from '../../model';
import { estimateImageTokens } from '../../tokens';
import type { BlockPricing } from '../parts/block-pricing';
import {
  ConversationBlock,
  NO_FILES,
  type Block,
  type CarriedFile,
  type PricedMessage,
} from '../parts/part';
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

const fileHeader = (file: Attachment, number: number): string =>
  `--- BEGIN FILE ${number}: ${file.name} (${file.mimeType}) ---`;
const fileFooter = (file: Attachment, number: number): string =>
  `--- END FILE ${number}: ${file.name} ---`;

/** All of a turn's files collapsed into one user message, each with a header and end marker. */
function renderFilesText(files: readonly Attachment[]): string {
  const sections: string[] = [FILES_PREFIX];
  files.forEach((file, index) => {
    const body = hasReadableText(file) ? file.text : describeUnreadableFile(file);
    sections.push(`${fileHeader(file, index + 1)}\n${body}\n${fileFooter(file, index + 1)}`);
  });
  return sections.join('\n');
}

/**
 * Tokens of that message's content: stored counts for the file texts (never re-tokenized), the
 * rest (prefix, headers, notices) counted as if the texts were empty.
 */
function priceFilesText(files: readonly Attachment[], env: BlockPricing): number {
  let contentTokens = 0;
  let framing = FILES_PREFIX;
  files.forEach((file, index) => {
    const header = fileHeader(file, index + 1);
    const footer = fileFooter(file, index + 1);
    if (hasReadableText(file)) {
      contentTokens += file.tokenCount;
      framing += `\n${header}\n\n${footer}`;
    } else {
      framing += `\n${header}\n${describeUnreadableFile(file)}\n${footer}`;
    }
  });
  return contentTokens + env.meter.countText(framing);
}

function imageMarker(image: Attachment, reason: string): string {
  const size = image.image ? ` (${image.image.width}×${image.image.height})` : '';
  return `[Image attached: ${image.name}${size}. ${reason}]`;
}

function estimateAttachmentImage(image: Attachment, env: BlockPricing): number {
  return image.image ? estimateImageTokens(env.providerKind, image.image) : image.tokenCount;
}

/** F: a turn's files, priced from stored counts; their texts are joined only if it is sent. */
class FilesBlock extends ConversationBlock {
  readonly tokens: number;
  readonly messageCount = 1;
  readonly isUser = true;
  readonly isUpload = true;
  readonly sourceId: MessageId;
  readonly files: readonly CarriedFile[];
  readonly #attachments: readonly Attachment[];

  constructor(
    message: UserMessage,
    attachments: readonly Attachment[],
    env: BlockPricing,
    part: RequiredPartName,
    isRequired: boolean,
  ) {
    super(part, isRequired);
    this.tokens = env.meter.priceMessage(priceFilesText(attachments, env));
    this.sourceId = message.id;
    this.files = attachments.map((file) => ({ fileId: file.fileId, name: file.name }));
    this.#attachments = attachments;
  }

  price(): PricedMessage[] {
    return [{ kind: 'file', tokens: this.tokens }];
  }

  render(): ContextMessage[] {
    return [
      {
        kind: 'file',
        tokens: this.tokens,
        message: { role: 'user', content: renderFilesText(this.#attachments) },
        sourceId: this.sourceId,
      },
    ];
  }
}

/** The message text, or a notice when it is empty, and its images (or a marker for each). */
function resolveUserContent(message: UserMessage, env: BlockPricing) {
  const isEmpty = message.text.trim().length === 0;
  let text = isEmpty ? EMPTY_USER_TEXT : message.text;
  let contentTokens = isEmpty ? env.meter.countText(EMPTY_USER_TEXT) : message.textTokenCount;
  const imageParts: LlmImagePart[] = [];
  let markerText = '';
  for (const image of message.attachments) {
    if (image.kind !== 'image') continue;
    const dataUrl = image.image?.dataUrl;
    if (!env.hasVision) {
      markerText += `\n${imageMarker(image, 'This model cannot see images.')}`;
    } else if (dataUrl === undefined || image.status !== 'ready') {
      markerText += `\n${imageMarker(image, 'The image data is not available.')}`;
    } else {
      imageParts.push({ type: 'image', image: dataUrl, mediaType: image.mimeType });
      contentTokens += estimateAttachmentImage(image, env);
    }
  }
  if (markerText.length > 0) {
    // One line per marker, after a blank line: "\n" + the lines joined by "\n".
    const markers = `\n${markerText}`;
    text += markers;
    contentTokens += env.meter.countText(markers);
  }
  return { text, contentTokens, imageParts };
}

/**
 * U: the message with its images. Most history has none, so only the price is kept and the
 * content is worked out again (cheaply, nothing counted) if the message is sent.
 */
class UserBlock extends ConversationBlock {
  readonly tokens: number;
  readonly messageCount = 1;
  readonly isUser = true;
  readonly isUpload = false;
  readonly files = NO_FILES;
  readonly #message: UserMessage;
  readonly #env: BlockPricing;

  constructor(
    message: UserMessage,
    env: BlockPricing,
    part: RequiredPartName,
    isRequired: boolean,
  ) {
    super(part, isRequired);
    this.tokens = env.meter.priceMessage(resolveUserContent(message, env).contentTokens);
    this.#message = message;
    this.#env = env;
  }

  get sourceId(): MessageId {
    return this.#message.id;
  }

  price(): PricedMessage[] {
    return [{ kind: 'user', tokens: this.tokens }];
  }

  render(): ContextMessage[] {
    const { text, imageParts } = resolveUserContent(this.#message, this.#env);
    const textPart: LlmTextPart = { type: 'text', text };
    const content = imageParts.length > 0 ? [textPart, ...imageParts] : text;
    return [
      {
        kind: 'user',
        tokens: this.tokens,
        message: { role: 'user', content },
        sourceId: this.sourceId,
      },
    ];
  }
}

/**
 * A stored user message as blocks, appended to `blocks`: its files (F) first, then the message
 * (U) with its images. F and U are separate blocks so an old file can be forgotten while its
 * question stays.
 */
export function priceUserMessage(
  message: UserMessage,
  env: BlockPricing,
  part: RequiredPartName,
  isRequired: boolean,
  blocks: Block[],
): void {
  const files = message.attachments.filter((attachment) => attachment.kind === 'text');
  if (files.length > 0) blocks.push(new FilesBlock(message, files, env, part, isRequired));
  blocks.push(new UserBlock(message, env, part, isRequired));
}
