import { z } from 'zod';
import { agentIdSchema, fileIdSchema, projectIdSchema } from './ids';
import { modelRefSchema } from './message';

export const projectSchema = z.object({
  id: projectIdSchema,
  name: z.string().min(1),
  /** Acts as the custom agent prompt when the default agent is used in this project. */
  instructions: z.string(),
  defaultModel: modelRefSchema.nullable(),
  defaultAgentId: agentIdSchema.nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type Project = z.infer<typeof projectSchema>;

export const fileStatusSchema = z.enum(['processing', 'ready', 'no_text', 'error']);
export type FileStatus = z.infer<typeof fileStatusSchema>;

/** A project file or attachment as the core sees it: text and token count, no blob. */
export const projectFileSchema = z.object({
  id: fileIdSchema,
  name: z.string(),
  mimeType: z.string(),
  sizeBytes: z.number().int().nonnegative(),
  status: fileStatusSchema,
  text: z.string().optional(),
  tokenCount: z.number().int().nonnegative(),
  error: z.string().optional(),
});
export type ProjectFile = z.infer<typeof projectFileSchema>;
