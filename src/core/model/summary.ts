import { z } from 'zod';
import { messageIdSchema, sessionIdSchema } from './ids';
import { modelRefSchema } from './message';

/**
 * A stored summary of the oldest part of a chat's branch (compaction). Nothing is deleted: the
 * summary points at the messages it stands for, which stay stored and shown. It covers the
 * chain from its root through `lastMessageId`, so it applies to every branch that passes through
 * that message and to no other. A newer summary covers the previous one plus the turns since.
 */
export const chatSummarySchema = z.object({
  id: z.string().min(1),
  sessionId: sessionIdSchema,
  /** The last message it covers; the chain from the root through it is what it stands for. */
  lastMessageId: messageIdSchema,
  /** Every message it stands for, oldest first (the root through `lastMessageId`). */
  coveredIds: z.array(messageIdSchema).min(1),
  /** The summary it continues (its text went into this one), or null for the first. */
  previousSummaryId: z.string().min(1).nullable(),
  text: z.string().min(1),
  tokenCount: z.number().int().nonnegative(),
  /** The model that wrote it. */
  model: modelRefSchema,
  createdAt: z.number(),
  /** Set by "Undo compaction": kept as a record, no longer sent. */
  undoneAt: z.number().optional(),
});
export type ChatSummary = z.infer<typeof chatSummarySchema>;
