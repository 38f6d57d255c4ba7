import type { ChatMessageSimple, MessageId } from '../../model';
import type { PlaceholderValues } from '../placeholders';
import type { SectionContext } from '../system-prompt/section';
import type {
  ContextInput,
  ContextMessage,
  DroppedItem,
  ProjectMode,
  RequiredPartName,
} from '../types';

/** Counts per request what has no stored count (S, CA, P, R, markers), and prices messages. */
export interface TokenMeter {
  /** Tokens of a text, with the model's encoding. */
  countText(text: string): number;
  /** Tokens of a whole message from its content tokens: overhead added, calibration applied. */
  priceMessage(contentTokens: number): number;
}

/** A point-in-time file a block carries, so a dropped block can be listed as forgotten. */
export interface CarriedFile {
  fileId: string;
  name: string;
}

/**
 * The unit of trimming: messages that are kept or dropped together (a tool call and its
 * result are one block, so no strategy can ever separate them).
 */
export interface Block {
  messages: ContextMessage[];
  tokens: number;
  /** Which part of the request it counts toward in a "does not fit" error. */
  part: RequiredPartName;
  /** Required blocks are never trimmed: S, CA, P, R, pinned messages, the newest turn. */
  isRequired: boolean;
  /** True for chat history (what strategies count); false for S, CA, P and R. */
  isConversation: boolean;
  sourceId?: MessageId;
  files: CarriedFile[];
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
  removeFromText: (text: string) => string;
}

export interface PartOutput {
  blocks: Block[];
  dropped: DroppedItem[];
}

/** One context source (HOUSE-STYLE habit 2): a file per part, in one ordered registry. */
export interface ContextPart {
  id: string;
  collect(env: PartEnv): PartOutput;
}

export function sumTokens(messages: readonly ContextMessage[]): number {
  let total = 0;
  for (const message of messages) total += message.tokens;
  return total;
}

/** A block holding one message that always ships (S, CA, P, R). */
export function buildFixedBlock(message: ContextMessage, part: RequiredPartName): Block {
  return {
    messages: [message],
    tokens: message.tokens,
    part,
    isRequired: true,
    isConversation: false,
    files: [],
  };
}
