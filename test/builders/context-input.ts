import { z } from 'zod';
import type { ContextInput, ContextTool } from '../../src/core/context';
import {
  contextOrderSchema,
  historyStrategySchema,
  modelInfoSchema,
  providerKindSchema,
  asProviderId,
  type ChatMessageSimple,
  type ChatSummary,
} from '../../src/core/model';
import type { TokenCounter } from '../../src/core/ports';
import { buildFrozenClock } from './clock';
import {
  buildAgent,
  buildAssistantMessage,
  buildChain,
  buildImageAttachment,
  buildModelInfo,
  buildProject,
  buildProjectFile,
  buildStep,
  buildTextAttachment,
  buildUserMessage,
} from './messages';

/**
 * The compact, hand-written form of a context case (golden `input.json`): only what the case is
 * about; builders fill in ids, timestamps and real token counts.
 */

const toolCallSpecSchema = z.object({
  id: z.string().optional(),
  name: z.string(),
  arguments: z.unknown(),
  status: z.enum(['pending', 'complete', 'error', 'cancelled']).optional(),
  result: z.string().optional(),
  isError: z.boolean().optional(),
  documents: z.array(z.number().int().positive()).optional(),
  /** A search result: these documents, in rank order, rendered as the documents JSON. */
  sources: z
    .array(z.object({ number: z.number().int().positive(), title: z.string(), contents: z.string() }))
    .optional(),
});

const stepSpecSchema = z.object({
  text: z.string().optional(),
  reasoning: z.string().optional(),
  reasoningState: z.record(z.string(), z.unknown()).optional(),
  toolCalls: z.array(toolCallSpecSchema).optional(),
});

const attachmentSpecSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('text'),
    name: z.string(),
    text: z.string().optional(),
    mimeType: z.string().optional(),
    status: z.enum(['ready', 'processing', 'no_text', 'error']).optional(),
    tokenCount: z.number().int().nonnegative().optional(),
    error: z.string().optional(),
  }),
  z.object({
    kind: z.literal('image'),
    name: z.string(),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    hasData: z.boolean().optional(),
  }),
]);

const messageSpecSchema = z.discriminatedUnion('role', [
  z.object({
    role: z.literal('user'),
    text: z.string(),
    attachments: z.array(attachmentSpecSchema).optional(),
    isPinned: z.boolean().optional(),
    isExcluded: z.boolean().optional(),
  }),
  z.object({
    role: z.literal('assistant'),
    /** Shorthand for one final step with this text. */
    text: z.string().optional(),
    steps: z.array(stepSpecSchema).optional(),
    isPinned: z.boolean().optional(),
    isExcluded: z.boolean().optional(),
  }),
]);

const toolSpecSchema = z.object({
  name: z.string(),
  description: z.string(),
  usage: z.string().optional(),
  isSearch: z.boolean().optional(),
});

export const contextCaseSchema = z.object({
  description: z.string(),
  model: modelInfoSchema.partial().optional(),
  providerKind: providerKindSchema.optional(),
  agent: z
    .object({
      prompt: z.string().optional(),
      shouldReplaceSystemPrompt: z.boolean().optional(),
      reminders: z.array(z.string()).optional(),
      historyStrategy: historyStrategySchema.optional(),
      uploadShare: z.number().optional(),
      isBuiltIn: z.boolean().optional(),
      contextOrder: contextOrderSchema.optional(),
      shouldSendPastReasoning: z.boolean().optional(),
    })
    .optional(),
  project: z
    .object({
      instructions: z.string().optional(),
      files: z.array(
        z.object({
          name: z.string(),
          text: z.string().optional(),
          mimeType: z.string().optional(),
          status: z.enum(['processing', 'ready', 'no_text', 'error']).optional(),
          tokenCount: z.number().int().nonnegative().optional(),
          sizeBytes: z.number().int().nonnegative().optional(),
        }),
      ),
    })
    .optional(),
  systemPromptOverride: z.string().nullable().optional(),
  tools: z.array(toolSpecSchema).optional(),
  hasSearchRunInTurn: z.boolean().optional(),
  isLastCycle: z.boolean().optional(),
  historyStrategy: historyStrategySchema.optional(),
  reservedOutputTokens: z.number().int().nonnegative().optional(),
  calibrationFactor: z.number().positive().optional(),
  userName: z.string().optional(),
  chain: z.array(messageSpecSchema),
  /** Stored summaries: each covers the chain from its start through message `throughIndex`. */
  summaries: z
    .array(z.object({ throughIndex: z.number().int().nonnegative(), text: z.string(), isUndone: z.boolean().optional() }))
    .optional(),
  turnSteps: z.array(stepSpecSchema).optional(),
});
export type ContextCase = z.infer<typeof contextCaseSchema>;

/** A JSON Schema object for a tool with one string argument: enough for the token estimate. */
function buildInputSchema(): Record<string, unknown> {
  return { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] };
}

export function buildContextTool(spec: z.infer<typeof toolSpecSchema>): ContextTool {
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: buildInputSchema(),
    ...(spec.usage !== undefined ? { usage: spec.usage } : {}),
    ...(spec.isSearch !== undefined ? { isSearch: spec.isSearch } : {}),
  };
}

function buildMessage(spec: z.infer<typeof messageSpecSchema>): ChatMessageSimple {
  const flags = {
    ...(spec.isPinned !== undefined ? { isPinned: spec.isPinned } : {}),
    ...(spec.isExcluded !== undefined ? { isExcluded: spec.isExcluded } : {}),
  };
  if (spec.role === 'user') {
    return buildUserMessage({
      text: spec.text,
      ...flags,
      attachments: (spec.attachments ?? []).map((attachment) =>
        attachment.kind === 'text'
          ? buildTextAttachment(attachment)
          : buildImageAttachment(attachment),
      ),
    });
  }
  const steps = spec.steps ?? [{ text: spec.text ?? '' }];
  return buildAssistantMessage({ steps, ...flags });
}

/** A stored summary of the chain through one of its messages, as compaction would store it. */
export function buildSummary(
  chain: readonly ChatMessageSimple[],
  spec: { throughIndex: number; text: string; isUndone?: boolean },
  index: number,
  tokenCounter: TokenCounter,
): ChatSummary {
  const covered = chain.slice(0, spec.throughIndex + 1);
  const last = covered.at(-1);
  if (last === undefined) throw new Error(`No message ${spec.throughIndex} to summarise through.`);
  return {
    id: `summary-${index + 1}`,
    sessionId: last.sessionId,
    lastMessageId: last.id,
    coveredIds: covered.map((message) => message.id),
    previousSummaryId: index > 0 ? `summary-${index}` : null,
    text: spec.text,
    tokenCount: tokenCounter.count(spec.text),
    model: { providerId: asProviderId('summariser'), modelId: 'summary-model' },
    createdAt: 1_700_000_000_000 + index,
    ...(spec.isUndone === true ? { undoneAt: 1_700_000_100_000 } : {}),
  };
}

export function buildContextInput(spec: ContextCase, tokenCounter: TokenCounter): ContextInput {
  const agent = buildAgent({
    ...(spec.agent?.prompt !== undefined ? { prompt: spec.agent.prompt } : {}),
    ...(spec.agent?.shouldReplaceSystemPrompt !== undefined
      ? { shouldReplaceSystemPrompt: spec.agent.shouldReplaceSystemPrompt }
      : {}),
    ...(spec.agent?.reminders !== undefined ? { reminders: spec.agent.reminders } : {}),
    ...(spec.agent?.historyStrategy !== undefined
      ? { historyStrategy: spec.agent.historyStrategy }
      : {}),
    ...(spec.agent?.isBuiltIn !== undefined ? { isBuiltIn: spec.agent.isBuiltIn } : {}),
    ...(spec.agent?.contextOrder !== undefined ? { contextOrder: spec.agent.contextOrder } : {}),
    ...(spec.agent?.shouldSendPastReasoning !== undefined
      ? { shouldSendPastReasoning: spec.agent.shouldSendPastReasoning }
      : {}),
    ...(spec.agent?.uploadShare !== undefined ? { uploadShare: spec.agent.uploadShare } : {}),
  });
  const chain = buildChain(spec.chain.map(buildMessage));
  return {
    chain,
    ...(spec.summaries ? { summaries: spec.summaries.map((summary, index) => buildSummary(chain, summary, index, tokenCounter)) } : {}),
    ...(spec.turnSteps ? { turnSteps: spec.turnSteps.map(buildStep) } : {}),
    agent,
    project: spec.project
      ? {
          project: buildProject({ instructions: spec.project.instructions ?? '' }),
          files: spec.project.files.map(buildProjectFile),
        }
      : null,
    systemPromptOverride: spec.systemPromptOverride ?? null,
    tools: (spec.tools ?? []).map(buildContextTool),
    hasSearchRunInTurn: spec.hasSearchRunInTurn ?? false,
    isLastCycle: spec.isLastCycle ?? false,
    model: buildModelInfo(spec.model ?? {}),
    providerKind: spec.providerKind ?? 'openai',
    ...(spec.reservedOutputTokens !== undefined
      ? { reservedOutputTokens: spec.reservedOutputTokens }
      : {}),
    ...(spec.historyStrategy !== undefined ? { historyStrategy: spec.historyStrategy } : {}),
    ...(spec.calibrationFactor !== undefined ? { calibrationFactor: spec.calibrationFactor } : {}),
    ...(spec.userName !== undefined ? { userName: spec.userName } : {}),
    clock: buildFrozenClock(),
    tokenCounter,
  };
}
