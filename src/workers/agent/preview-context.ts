/**
 * "What would be sent now": the context engine's full answer (messages with kinds and tokens,
 * budget, dropped items, project mode) for the next request or for the last one, without
 * calling a model or writing anything. The context inspector shows it.
 */
import { z } from 'zod';
import type { AssemblerArgs, PreparedContext } from '../../core/agent/process-message';
import { resolveGeneration } from '../../core/agent/resolve-generation';
import { toToolDefinition } from '../../core/agent/tools/tool';
import type { AssembledContext } from '../../core/context';
import {
  asAgentId,
  asMessageId,
  asProjectId,
  asSessionId,
  attachmentSchema,
  modelRefSchema,
  type Attachment,
  type ChatMessageSimple,
  type ModelInfo,
  type Project,
  type ProjectFile,
  type ProviderConfig,
  type UserMessage,
} from '../../core/model';
import type { AgentStore, Clock, MessageStore, ProjectStore, ProviderStore, SessionStore, TokenCounter } from '../../core/ports';
import type { WorkerResult } from './agent.api';

export const previewContextRequestSchema = z.object({
  /** null: a new chat. */
  sessionId: z.string().min(1).nullable(),
  model: modelRefSchema,
  /** The draft in the composer; it becomes the newest user message of the preview. */
  text: z.string().default(''),
  /** The files attached in the composer: the draft carries them as the message will. */
  attachments: z.array(attachmentSchema).default([]),
  /** The agent a new chat would take (an open chat uses its own). */
  agentId: z.string().min(1).nullable().optional(),
  projectId: z.string().min(1).nullable().optional(),
  /**
   * Preview the request that answered this stored user message (the "last request"),
   * recomputed from storage rather than kept: nothing new is stored for the inspector.
   */
  userMessageId: z.string().min(1).optional(),
});
export type PreviewContextRequest = z.input<typeof previewContextRequestSchema>;

export interface PreviewContextDeps {
  sessions: SessionStore;
  messages: MessageStore;
  providers: ProviderStore;
  agents: AgentStore;
  projects: ProjectStore;
  tokens: TokenCounter;
  clock: Clock;
  loadProjectFiles(project: Project): Promise<ProjectFile[]>;
  resolveModel(provider: ProviderConfig, modelId: string): ModelInfo;
  /** The host's own prepareContext (same system prompt, tools and agent rules as a real turn). */
  prepare(args: AssemblerArgs, onAssembled: (context: AssembledContext) => void): Promise<PreparedContext>;
}

export async function previewContext(raw: unknown, deps: PreviewContextDeps): Promise<WorkerResult<AssembledContext>> {
  const parsed = previewContextRequestSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, error: { code: 'invalid_request', message: parsed.error.issues[0]?.message ?? 'Invalid preview request.' } };
  }
  const request = parsed.data;
  const provider = await deps.providers.get(request.model.providerId);
  if (!provider) return { ok: false, error: { code: 'no_provider', message: 'That provider is no longer configured.' } };
  const session = request.sessionId ? ((await deps.sessions.get(asSessionId(request.sessionId))) ?? null) : null;

  let chain: ChatMessageSimple[];
  if (request.userMessageId !== undefined) {
    chain = await deps.messages.loadChain(asMessageId(request.userMessageId));
    if (chain.at(-1)?.role !== 'user') {
      return { ok: false, error: { code: 'not_found', message: 'That question is no longer stored.' } };
    }
  } else {
    const history = session?.currentLeafId ? await deps.messages.loadChain(session.currentLeafId) : [];
    chain = [...history, draftMessage(request.text, request.attachments, session?.id ?? null, history.at(-1)?.id ?? null, deps)];
  }

  const agentId = session ? session.agentId : (request.agentId ?? null);
  const agent = agentId ? ((await deps.agents.get(asAgentId(agentId))) ?? null) : null;
  const projectId = session ? session.projectId : (request.projectId ?? null);
  const project = projectId ? ((await deps.projects.get(asProjectId(projectId))) ?? null) : null;
  const projectFiles = project ? await deps.loadProjectFiles(project) : [];
  const model = deps.resolveModel(provider, request.model.modelId);

  // The answer length set for the agent or the chat changes what the context keeps free.
  const { reservedOutputTokens } = resolveGeneration(agent, session, model);
  let assembled: AssembledContext | undefined;
  const prepared = await deps.prepare(
    {
      chain,
      agent,
      project,
      projectFiles,
      model,
      provider,
      ...(reservedOutputTokens === undefined ? {} : { reservedOutputTokens }),
    },
    (context) => {
      assembled = context;
    },
  );
  const result = prepared.assemble({
    turnSteps: [],
    tools: prepared.tools.map(toToolDefinition),
    hasSearchRun: false,
    isLastCycle: false,
  });
  if (!result.ok) return { ok: false, error: { code: result.error.code, message: result.error.message } };
  if (!assembled) return { ok: false, error: { code: 'internal', message: 'The context engine returned nothing.' } };
  return { ok: true, value: assembled };
}

function draftMessage(
  text: string,
  attachments: Attachment[],
  sessionId: string | null,
  parentId: ChatMessageSimple['id'] | null,
  deps: Pick<PreviewContextDeps, 'tokens' | 'clock'>,
): UserMessage {
  const now = deps.clock.now();
  return {
    id: asMessageId('draft'),
    sessionId: asSessionId(sessionId ?? 'draft'),
    parentId,
    role: 'user',
    text,
    textTokenCount: deps.tokens.count(text),
    attachments,
    isPinned: false,
    isExcluded: false,
    createdAt: now,
    updatedAt: now,
  };
}
