import { z } from 'zod';
import { fileIdSchema, messageIdSchema, providerIdSchema, sessionIdSchema } from './ids';

/**
 * ChatMessageSimple: the rich message model used everywhere between storage and the LLM
 * adapter. Stored rows are converted into it at the storage
 * boundary; the LLM-facing form (`LlmMessage`, see llm-input.ts) is derived from it by the
 * context engine. Every piece of text carries its token count, computed once with the default
 * tokenizer when the piece is created, so assembly never re-tokenizes history.
 */

export const messageStatusSchema = z.enum(['streaming', 'complete', 'stopped', 'interrupted', 'error']);
export type MessageStatus = z.infer<typeof messageStatusSchema>;

export const stopReasonSchema = z.enum([
  'completed',
  'user_cancelled',
  'error',
  'interrupted',
  'max_cycles',
  'length',
  'content_filter',
]);
export type StopReason = z.infer<typeof stopReasonSchema>;

export const messageErrorSchema = z.object({ code: z.string(), message: z.string() });
export type MessageError = z.infer<typeof messageErrorSchema>;

export const usageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  reasoningTokens: z.number().int().nonnegative().optional(),
  cachedInputTokens: z.number().int().nonnegative().optional(),
});
export type Usage = z.infer<typeof usageSchema>;

export const modelRefSchema = z.object({ providerId: providerIdSchema, modelId: z.string().min(1) });
export type ModelRef = z.infer<typeof modelRefSchema>;

/** A file attached to a user message: a point-in-time inclusion: the file as it was when sent. */
export const attachmentSchema = z.object({
  fileId: fileIdSchema,
  name: z.string(),
  mimeType: z.string(),
  kind: z.enum(['text', 'image']),
  sizeBytes: z.number().int().nonnegative(),
  /** Tokens of the extracted text, or the estimated cost of the image. */
  tokenCount: z.number().int().nonnegative(),
  /** `ready` has text (or image data); the others get an explicit notice in the context. */
  status: z.enum(['ready', 'processing', 'no_text', 'error']),
  text: z.string().optional(),
  image: z
    .object({
      width: z.number().int().positive(),
      height: z.number().int().positive(),
      /** data: URL of the image bytes, as providers accept them. */
      dataUrl: z.string().optional(),
    })
    .optional(),
  error: z.string().optional(),
});
export type Attachment = z.infer<typeof attachmentSchema>;

/** A message of another chat, where a citation of the user's chat history points. */
export const chatSourceSchema = z.object({
  sessionId: sessionIdSchema,
  messageId: messageIdSchema,
});
export type ChatSource = z.infer<typeof chatSourceSchema>;

/** A document an answer cites: a project file (and where in it), a web page or a past chat's message. */
export const citationSchema = z.object({
  number: z.number().int().positive(),
  title: z.string(),
  fileId: fileIdSchema.optional(),
  url: z.string().optional(),
  location: z.string().optional(),
  chat: chatSourceSchema.optional(),
});
export type Citation = z.infer<typeof citationSchema>;

/** What a tool returned, as the model will read it (documents JSON or plain text). */
export const toolResultSchema = z.object({
  content: z.string(),
  tokenCount: z.number().int().nonnegative(),
  isError: z.boolean(),
  /** Citation numbers this result introduced, mapped to the documents behind them. */
  documents: z.array(citationSchema).optional(),
});
export type ToolResult = z.infer<typeof toolResultSchema>;

export const toolCallStatusSchema = z.enum(['pending', 'complete', 'error', 'cancelled']);
export type ToolCallStatus = z.infer<typeof toolCallStatusSchema>;

export const toolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  /** The arguments exactly as the model produced them (JSON text). */
  argumentsText: z.string(),
  argumentsTokenCount: z.number().int().nonnegative(),
  status: toolCallStatusSchema,
  /** Opaque provider state to send back with the call (Gemini's thought signature). */
  providerState: z.record(z.string(), z.unknown()).optional(),
  result: toolResultSchema.optional(),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

export const reasoningSchema = z.object({
  text: z.string(),
  tokenCount: z.number().int().nonnegative(),
  durationMs: z.number().nonnegative().optional(),
  /** Opaque provider state that must be sent back (thinking signature, encrypted reasoning). */
  providerState: z.record(z.string(), z.unknown()).optional(),
});
export type Reasoning = z.infer<typeof reasoningSchema>;

/** One LLM inference inside an assistant turn: optional reasoning, text, tool calls. */
export const assistantStepSchema = z.object({
  reasoning: reasoningSchema.optional(),
  text: z.string(),
  textTokenCount: z.number().int().nonnegative(),
  toolCalls: z.array(toolCallSchema),
});
export type AssistantStep = z.infer<typeof assistantStepSchema>;


const messageBaseSchema = z.object({
  id: messageIdSchema,
  sessionId: sessionIdSchema,
  parentId: messageIdSchema.nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
  isPinned: z.boolean(),
  isExcluded: z.boolean(),
});

export const userMessageSchema = messageBaseSchema.extend({
  role: z.literal('user'),
  text: z.string(),
  textTokenCount: z.number().int().nonnegative(),
  attachments: z.array(attachmentSchema),
});
export type UserMessage = z.infer<typeof userMessageSchema>;

/** A compared answer that a merged answer was made from, and the model that wrote it. */
export const fusedSourceSchema = z.object({
  messageId: messageIdSchema,
  model: modelRefSchema.optional(),
});
export type FusedSource = z.infer<typeof fusedSourceSchema>;

/** "Answer 2 (model-beta)": how the merging model and the merged answer name a compared answer. */
export function labelFusedSource(source: Pick<FusedSource, 'model'>, index: number): string {
  const number = `Answer ${String(index + 1)}`;
  return source.model ? `${number} (${source.model.modelId})` : number;
}

export const assistantMessageSchema = messageBaseSchema.extend({
  role: z.literal('assistant'),
  steps: z.array(assistantStepSchema),
  status: messageStatusSchema,
  stopReason: stopReasonSchema.optional(),
  error: messageErrorSchema.optional(),
  model: modelRefSchema.optional(),
  usage: usageSchema.optional(),
  citations: z.array(citationSchema),
  /** A merged answer: the compared answers it combines, in the order it was given them. */
  fusedFrom: z.array(fusedSourceSchema).optional(),
});
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;

export const chatMessageSimpleSchema = z.discriminatedUnion('role', [
  userMessageSchema,
  assistantMessageSchema,
]);
export type ChatMessageSimple = z.infer<typeof chatMessageSimpleSchema>;

/** The visible answer of an assistant message: the text of every step, in order. */
export function answerText(message: AssistantMessage): string {
  return message.steps
    .map((step) => step.text)
    .filter((text) => text.length > 0)
    .join('\n\n');
}
