import { z } from 'zod';
import { agentIdSchema } from './ids';
import { contextOrderSchema, generationSettingsSchema } from './generation';
import { modelRefSchema } from './message';

/** How much history an agent keeps; the token budget always applies on top. */
export const historyStrategySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('auto') }),
  z.object({ kind: z.literal('unbounded') }),
  z.object({ kind: z.literal('buffered'), size: z.number().int().positive() }),
  z.object({
    kind: z.literal('head_and_tail'),
    head: z.number().int().nonnegative(),
    tail: z.number().int().positive(),
  }),
  z.object({ kind: z.literal('token_limited'), maxTokens: z.number().int().positive() }),
]);
export type HistoryStrategy = z.infer<typeof historyStrategySchema>;

export const agentSchema = z.object({
  id: agentIdSchema,
  name: z.string().min(1),
  /** The custom agent prompt (CA); empty for the built-in default agent. */
  prompt: z.string(),
  /** When true the prompt replaces the system prompt and does not move. */
  shouldReplaceSystemPrompt: z.boolean(),
  /** Short instructions repeated at the very end of the context (R). */
  reminders: z.array(z.string()),
  defaultModel: modelRefSchema.nullable(),
  enabledTools: z.array(z.string()),
  historyStrategy: historyStrategySchema,
  /** Temperature, top-p, answer length, reasoning; absent: the provider's defaults. */
  generation: generationSettingsSchema.optional(),
  /** Where the agent prompt and project files go; absent: `recency`. */
  contextOrder: contextOrderSchema.optional(),
  /** Send reasoning from earlier turns back to the model; absent: only the current turn's. */
  shouldSendPastReasoning: z.boolean().optional(),
  isBuiltIn: z.boolean(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type Agent = z.infer<typeof agentSchema>;

/** The built-in agent's id; sessions without an agent use it too. */
export const DEFAULT_AGENT_ID = 'default' as Agent['id'];

/**
 * The built-in agent: no custom prompt (in a project, the project's instructions act as its
 * custom agent prompt), no reminders, the automatic history strategy. Pure data, so the
 * agents screen can show it without reaching into the agent runtime.
 */
export function createDefaultAgent(now: number): Agent {
  return {
    id: DEFAULT_AGENT_ID,
    name: 'Default',
    prompt: '',
    shouldReplaceSystemPrompt: false,
    reminders: [],
    defaultModel: null,
    enabledTools: [],
    historyStrategy: { kind: 'auto' },
    isBuiltIn: true,
    createdAt: now,
    updatedAt: now,
  };
}
