import { z } from 'zod';
import { agentIdSchema, messageIdSchema, projectIdSchema, sessionIdSchema } from './ids';
import { generationSettingsSchema } from './generation';
import { modelRefSchema } from './message';

export const sessionSchema = z.object({
  id: sessionIdSchema,
  title: z.string(),
  projectId: projectIdSchema.nullable(),
  agentId: agentIdSchema.nullable(),
  /** One model, or up to three in compare mode. */
  models: z.array(modelRefSchema).max(3),
  /** The leaf of the visible branch; null for an empty session. */
  currentLeafId: messageIdSchema.nullable(),
  /** This chat's own generation settings, each field over the agent's. */
  generationOverride: generationSettingsSchema.optional(),
  isPinned: z.boolean(),
  isArchived: z.boolean(),
  createdAt: z.number(),
  updatedAt: z.number(),
  /** Bumped on every change to the session or its messages; validates caches. */
  version: z.number().int().nonnegative(),
});
export type Session = z.infer<typeof sessionSchema>;
