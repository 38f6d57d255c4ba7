/**
 * "What would be sent now": the context engine's full answer (messages with kinds and tokens,
 * budget, dropped items, project mode) for the next request or for the last one, without
 * calling a model or writing anything. The context inspector shows it.
 */
import { z } from 'zod';
import type { AssemblerArgs, PreparedContext } from '../../core/agent/process-message';
import { MAX_LLM_CYCLES } from '../../core/agent/run-llm-loop';
import { toToolDefinition } from '../../core/agent/tools/tool';
import type { AssembledContext } from '../../core/context';
import {
  asAgentId,
  asMessageId,
  asProjectId,
  asSessionId,
  attachmentSchema,
  modelRefSchema,
  type AssistantStep,
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
  // The last request of the answered turn carries the answer's tool steps, as its last cycle did.
  let turnSteps: AssistantStep[] = [];
  if (request.userMessageId !== undefined) {
    chain = await deps.messages.loadChain(asMessageId(request.userMessageId));
    if (chain.at(-1)?.role !== 'user') {
      return { ok: false, error: { code: 'not_found', message: 'That question is no longer stored.' } };
    }
    turnSteps = await loadToolSteps(request.userMessageId, session?.currentLeafId ?? null, deps);
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

  let assembled: AssembledContext | undefined;
  const prepared = await deps.prepare(
    { chain, agent, project, projectFiles, model, provider },
    (context) => {
      assembled = context;
    },
  );
  const isLastCycle = turnSteps.length >= MAX_LLM_CYCLES - 1;
  const searchTools = new Set(prepared.tools.filter((tool) => tool.isSearch).map((tool) => tool.name));
  const result = prepared.assemble({
    turnSteps,
    tools: isLastCycle ? [] : prepared.tools.map(toToolDefinition),
    hasSearchRun: turnSteps.some((step) => step.toolCalls.some((call) => searchTools.has(call.name))),
    isLastCycle,
  });
  if (!result.ok) return { ok: false, error: { code: result.error.code, message: result.error.message } };
  if (!assembled) return { ok: false, error: { code: 'internal', message: 'The context engine returned nothing.' } };
  return { ok: true, value: assembled };
}

/** The tool steps of the answer to a stored question on the session's current branch. */
async function loadToolSteps(
  userMessageId: string,
  leafId: ChatMessageSimple['id'] | null,
  deps: Pick<PreviewContextDeps, 'messages'>,
): Promise<AssistantStep[]> {
  if (leafId === null) return [];
  const branch = await deps.messages.loadChain(leafId);
  const at = branch.findIndex((message) => message.id === userMessageId);
  const answer = at >= 0 ? branch[at + 1] : undefined;
  if (answer?.role !== 'assistant') return [];
  return answer.steps.filter((step) => step.toolCalls.length > 0);
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
