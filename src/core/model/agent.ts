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
  /** The newest `turns` questions with their answers, the one being answered included. */
  z.object({ kind: z.literal('last_turns'), turns: z.number().int().positive() }),
  /**
   * Once the context would pass `triggerTokens`, the results of all but the newest `keep` tool
   * calls are replaced by a short notice (as the providers' own context editing does); calls of
   * `excludeTools` are never cleared; `shouldClearArguments` clears the call's arguments too.
   */
  z.object({
    kind: z.literal('clear_tool_results'),
    triggerTokens: z.number().int().positive(),
    keep: z.number().int().nonnegative(),
    excludeTools: z.array(z.string()),
    shouldClearArguments: z.boolean(),
  }),
]);
export type HistoryStrategy = z.infer<typeof historyStrategySchema>;

/** Uploads may be given at most this share, so history always keeps some room. */
export const MAX_UPLOAD_SHARE = 0.9;
/** Half the room for uploads, half for history, unless the agent says otherwise. */
export const DEFAULT_UPLOAD_SHARE = 0.5;

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
  /**
   * Share of the input budget reserved for uploaded content (files attached in the chat and
   * inline project files); the rest is for history. DEFAULT_UPLOAD_SHARE when not set.
   */
  uploadShare: z.number().min(0).max(MAX_UPLOAD_SHARE).optional(),
  /**
   * Long chats are summarised in the background when their history passes a share of its
   * budget (compaction); false turns that off for this agent. On when not set.
   */
  isCompactionEnabled: z.boolean().optional(),
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
