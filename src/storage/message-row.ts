/** How a message is stored: one row per message, shared by the schema and the line placement. */
import type {
  AssistantStep,
  Attachment,
  Citation,
  FusedSource,
  MessageError,
  MessageStatus,
  ModelRef,
  StopReason,
  Usage,
} from '../core/model';

/**
 * IndexedDB leaves rows whose key is null out of an index, so a root message is stored with
 * this parent instead of null; otherwise `[sessionId+parentId]` could not list the roots.
 */
export const ROOT_PARENT_ID = '';

/** One message per row; see `message-rows.ts` for the conversion to ChatMessageSimple. */
export interface MessageRow {
  id: string;
  sessionId: string;
  /** `ROOT_PARENT_ID` for the first message of a branch. */
  parentId: string;
  role: 'user' | 'assistant';
  /** Always `complete` for user messages, so the status index covers every row. */
  status: MessageStatus;
  /**
   * The user's text. Version 2 also kept a copy of the assistant's answer here; version 3
   * dropped it, since it doubled the bytes every chain load reads (`answerText` rebuilds it).
   */
  text?: string;
  /** Every token the message can put in a context: text, reasoning, tool calls, attachments. */
  tokenCount: number;
  createdAt: number;
  updatedAt: number;
  isPinned: boolean;
  isExcluded: boolean;
  textTokenCount?: number;
  attachments?: Attachment[];
  steps?: AssistantStep[];
  stopReason?: StopReason;
  error?: MessageError;
  model?: ModelRef;
  usage?: Usage;
  citations?: Citation[];
  fusedFrom?: FusedSource[];
  /** Since version 3: the line this message belongs to and its depth (see `message-lines.ts`). */
  lineId: string;
  depth: number;
}
