import { z } from 'zod';

/**
 * The minimal LLM-facing message form. Kept as small as the
 * providers need, so the LLM adapter stays simple; everything richer lives in ChatMessageSimple.
 */

export const llmTextPartSchema = z.object({ type: z.literal('text'), text: z.string() });
export const llmImagePartSchema = z.object({
  type: z.literal('image'),
  /** A data: URL or an https URL. */
  image: z.string(),
  mediaType: z.string().optional(),
});
export const llmReasoningPartSchema = z.object({
  type: z.literal('reasoning'),
  text: z.string(),
  providerState: z.record(z.string(), z.unknown()).optional(),
});
export const llmToolCallPartSchema = z.object({
  type: z.literal('tool-call'),
  toolCallId: z.string(),
  toolName: z.string(),
  /** Parsed arguments; the raw text when it was not valid JSON. */
  input: z.unknown(),
  /** Opaque provider state that must go back with the call (Gemini's thought signature). */
  providerState: z.record(z.string(), z.unknown()).optional(),
});
export const llmToolResultPartSchema = z.object({
  type: z.literal('tool-result'),
  toolCallId: z.string(),
  toolName: z.string(),
  output: z.string(),
  isError: z.boolean().optional(),
});

export const llmMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({
    role: z.literal('user'),
    content: z.union([z.string(), z.array(z.union([llmTextPartSchema, llmImagePartSchema]))]),
  }),
  z.object({
    role: z.literal('assistant'),
    content: z.array(z.union([llmTextPartSchema, llmReasoningPartSchema, llmToolCallPartSchema])),
  }),
  z.object({ role: z.literal('tool'), content: z.array(llmToolResultPartSchema) }),
]);
export type LlmMessage = z.infer<typeof llmMessageSchema>;
export type LlmTextPart = z.infer<typeof llmTextPartSchema>;
export type LlmImagePart = z.infer<typeof llmImagePartSchema>;
export type LlmReasoningPart = z.infer<typeof llmReasoningPartSchema>;
export type LlmToolCallPart = z.infer<typeof llmToolCallPartSchema>;
export type LlmToolResultPart = z.infer<typeof llmToolResultPartSchema>;

/** A tool as offered to the model: name, description and a JSON Schema for its input. */
export const toolDefinitionSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
});
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;
