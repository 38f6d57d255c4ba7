import type { ChatMessageSimple, MessageId, ToolCall } from '../../model';
import type { PlaceholderValues } from '../placeholders';
import type { BlockPricing } from './block-pricing';
import type { TokenMeter } from '../token-meter';
import type { SectionContext } from '../system-prompt/section';
import type {
  ContextInput,
  ContextKind,
  ContextMessage,
  DroppedItem,
  ProjectMode,
  RequiredPartName,
} from '../types';

export type { TokenMeter } from '../token-meter';

/** A point-in-time file a block carries, so a dropped block can be listed as forgotten. */
export interface CarriedFile {
  fileId: string;
  name: string;
}

/** What one message of a block costs, known without rendering it. */
export interface PricedMessage {
  kind: ContextKind;
  tokens: number;
}

/** What the context sends for one tool call instead of what is stored (reduced or cleared). */
export interface CallOverride {
  /** The result text the model reads instead of the stored one. */
  output?: string;
  /** Content tokens of `output`. */
  outputTokens?: number;
  /** The call's arguments are sent as an empty object. */
  isArgumentsCleared?: boolean;
  /** A short note for the inspector, e.g. "2 sources left out". */
  label?: string;
}

/** The tool calls of a step block, for the turn reducer and the clearing strategy. */
export interface StepCalls {
  calls: readonly ToolCall[];
  /** This turn's results go in full; earlier turns' are already a short placeholder. */
  isCurrentTurn: boolean;
  overrides: ReadonlyMap<string, CallOverride>;
  /** The same step sent with these overrides: a new block, this one unchanged. */
  adjust(overrides: ReadonlyMap<string, CallOverride>): Block;
  /**
   * The least and the most this block can cost once any of the calls `isClearable` accepts has
   * its arguments sent cleared or as they are (each call either way, whichever the strategy
   * picks): what the history window counts before it knows which calls the strategy clears.
   */
  priceRange(isClearable: (call: ToolCall) => boolean): { least: number; most: number };
}

/** What an elided stretch of history holds, summed; its blocks only when asked for. */
export interface ElidedHistory {
  /** Chat messages it stands for that would send something (the skipped marker counts them). */
  messageCount: number;
  /** The blocks it stands for, oldest first (for the report of what was left out). */
  blocks(): readonly Block[];
  /** The same stretch standing for other blocks (the same ones sent differently). */
  revise(blocks: () => readonly Block[]): Block;
}

/** The files of a block that carries none, shared: most blocks carry none. */
export const NO_FILES: readonly CarriedFile[] = Object.freeze([]);

/**
 * The unit of trimming: messages that are kept or dropped together (a tool call and its
 * result are one block, so no strategy can ever separate them). A block is priced from stored
 * counts when it is collected and rendered only if it is sent, so a long history costs
 * arithmetic, not rendering, for everything the budget leaves out.
 */
export interface Block {
  tokens: number;
  /** How many messages it sends: what the strategies and the skipped marker count. */
  messageCount: number;
  /** Which part of the request it counts toward in a "does not fit" error. */
  part: RequiredPartName;
  /** Required blocks are never trimmed: S, CA, P, R, pinned messages, the newest turn. */
  isRequired: boolean;
  /** True for chat history (what strategies count); false for S, CA, P and R. */
  isConversation: boolean;
  /** A user message or its files (a turn starts there); false for answers and S, CA, P, R. */
  isUser: boolean;
  /** Uploaded content (a message's files, inline project files): counts toward the upload share. */
  isUpload: boolean;
  /** A step that called tools: its calls and how to send them differently. */
  stepCalls?: StepCalls | undefined;
  sourceId?: MessageId | undefined;
  files: readonly CarriedFile[];
  /**
   * Set on a stretch of older history the assembly never looked at one message at a time (see
   * `historyPart`): it stands for whole chat messages the budget or the strategy drops anyway,
   * so the trim never keeps it; the markers count its messages and name its files.
   */
  elided?: ElidedHistory | undefined;
  /** Kind and tokens of each message it sends, in order (for the report of what was left out). */
  price(): PricedMessage[];
  /** The messages as sent, with the kinds and tokens of `price()`. */
  render(): ContextMessage[];
}

/**
 * A block of the chat itself (history or newest turn): priced when it is built, rendered by the
 * subclass only if it is sent.
 */
export abstract class ConversationBlock implements Block {
  abstract readonly tokens: number;
  abstract readonly messageCount: number;
  abstract readonly sourceId: MessageId | undefined;
  abstract readonly files: readonly CarriedFile[];
  readonly part: RequiredPartName;
  readonly isRequired: boolean;
  readonly isConversation = true;
  abstract readonly isUser: boolean;
  abstract readonly isUpload: boolean;

  constructor(part: RequiredPartName, isRequired: boolean) {
    this.part = part;
    this.isRequired = isRequired;
  }

  abstract price(): PricedMessage[];
  abstract render(): ContextMessage[];
}

/** Everything the parts read, prepared once per request by assembleContext. */
export interface PartEnv {
  input: ContextInput;
  meter: TokenMeter;
  /** The chain without excluded messages. */
  conversation: ChatMessageSimple[];
  /** Index in `conversation` of the newest user message (the turn's anchor). */
  anchorIndex: number;
  excluded: ChatMessageSimple[];
  projectMode: ProjectMode | null;
  sectionContext: SectionContext;
  placeholders: PlaceholderValues;
  /** The prompt replacing our editable system prompt (user override or replacing agent). */
  systemOverride: string | null;
  isSystemReplacedByAgent: boolean;
  /** The moving custom agent prompt (CA), already expanded; null when there is none. */
  customAgentText: string | null;
  customAgentLabel: string | undefined;
  reminderLines: string[];
  /** What chat blocks are priced and rendered with, shared by requests that agree on it. */
  pricing: BlockPricing;
  /**
   * Tokens beyond which older history cannot be sent (the input budget): the history part
   * walks back from the newest message until this much is behind it, and sums up the rest.
   * Infinity (the default) lists every block.
   */
  historyReach: number;
}

export interface PartOutput {
  blocks: Block[];
  dropped: DroppedItem[];
}

/** One context source: a file per part, in one ordered registry. */
export interface ContextPart {
  id: string;
  collect(env: PartEnv): PartOutput;
}

export function sumTokens(messages: readonly PricedMessage[]): number {
  let total = 0;
  for (const message of messages) total += message.tokens;
  return total;
}

/** A block holding one message that always ships (S, CA, P, R). */
export function buildFixedBlock(message: ContextMessage, part: RequiredPartName): Block {
  const messages = [message];
  return {
    tokens: message.tokens,
    messageCount: 1,
    part,
    isRequired: true,
    isConversation: false,
    isUser: false,
    isUpload: part === 'project_files',
    files: NO_FILES,
    price: () => messages,
    render: () => messages,
  };
}
