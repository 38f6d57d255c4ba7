/**
 * Turn assembly: what a turn's context is built from (chain, agent, project and its files, the
 * system prompt, the tools on offer, the model's token calibration) resolved in one place, and
 * the context engine closed over it. Sending a message and previewing the next request both go
 * through here, so the preview is the request a send would make.
 */
import { z } from 'zod';
import {
  assembleContext,
  measureOutputRoom,
  selectCacheBreakpoints,
  type AssembledContext,
  type ContextTool,
} from '../context';
import {
  asAgentId,
  asMessageId,
  asProjectId,
  asSessionId,
  attachmentSchema,
  modelRefSchema,
  type Agent,
  type AgentId,
  type Attachment,
  type ChatMessageSimple,
  type ChatSummary,
  type Citation,
  type ModelInfo,
  type Project,
  type ProjectId,
  type ProviderConfig,
  type Session,
  type ToolDefinition,
  type Usage,
  type UserMessage,
} from '../model';
import type {
  AgentStore,
  ChatHistorySearch,
  Clock,
  ConfirmationPort,
  MessageStore,
  ProjectStore,
  ProviderStore,
  SessionStore,
  SummaryStore,
  TokenCounter,
} from '../ports';
import type { Result } from '../../util/result';
import { createDefaultAgent } from './default-agent';
import { scopeProject, type ProjectFilesPort, type ProjectScope } from './project-scope';
import { resolveGeneration, type ResolvedGeneration } from './resolve-generation';
import type { LoopDeps } from './run-llm-loop';
import { selectProjectTools } from './tools/project-tools';
import { selectChatTools } from './tools/search-chats.tool';
import { toToolDefinition, type Tool } from './tools/tool';

/** The learned correction of our token estimates, per provider and model, for one turn. */
export interface TokenCalibration {
  /** The factor for this key (1 when nothing was learned). */
  factor(key: string): number;
  /** Moves the key's factor toward what the provider reported, and keeps it for next time. */
  learn(key: string, estimatedInputTokens: number, usage: Usage): void;
}

/** The turn's configured tools (web search, open_url, MCP), loaded once per turn. */
export interface TurnToolSource {
  /** The tools this agent gets in this chain. */
  toolsFor(scope: { agent: Agent | null; chain: readonly ChatMessageSimple[] }): Tool[];
  /** What went wrong loading them (an MCP server that cannot be reached): the turn goes on without. */
  warnings?: readonly string[];
}

/** Everything turn assembly reads, as ports: stores, the project's files, settings, tools. */
export interface TurnPorts {
  agents: AgentStore;
  projects: ProjectStore;
  /** The chat's stored summaries of its oldest turns (compaction); absent: none are read. */
  summaries?: Pick<SummaryStore, 'listBySession'>;
  clock: Clock;
  tokens: TokenCounter;
  projectFiles: ProjectFilesPort;
  resolveModel(provider: ProviderConfig, modelId: string): ModelInfo;
  /** The user's edited system prompt; null for the default. */
  loadSystemPrompt(): Promise<string | null>;
  loadCalibration(): Promise<TokenCalibration>;
  /** Risky tools ask through `confirmation`; the preview passes one that refuses everything. */
  loadTools(confirmation: ConfirmationPort, signal: AbortSignal): Promise<TurnToolSource>;
  /** Tools on offer in every turn, before the project's and the configured ones. */
  baseTools?: readonly Tool[];
  /** The user's chats, for the opt-in search_chats tool; absent: the tool is never offered. */
  chatHistory?: ChatHistorySearch;
}

/** A turn's inputs, resolved once for every model that answers it. */
export interface ResolvedTurn {
  chain: ChatMessageSimple[];
  agent: Agent | null;
  /** The chat's own generation settings over the agent's; null for a new chat. */
  session: Pick<Session, 'id' | 'generationOverride'> | null;
  /** The chat's summaries; the branch's newest one not undone stands in for the turns it covers. */
  summaries: readonly ChatSummary[];
  project: Project | null;
  systemPromptOverride: string | null;
  calibration: TokenCalibration;
  toolSource: TurnToolSource;
  /** The project's files, listed once (empty without a project). */
  projectFiles: Awaited<ReturnType<ProjectFilesPort['list']>>;
}

/** What one model's turn runs with: the context closed over its inputs, tools and documents. */
export interface PreparedContext {
  model: ModelInfo;
  /** The answer length, sampling and reasoning this model's requests ask for. */
  generation: ResolvedGeneration;
  assemble: LoopDeps['assemble'];
  /** Learns from each step's reported usage (token calibration for this model). */
  onStepUsage?: LoopDeps['onStepUsage'];
  /** Documents numbered by the context itself (inline project files), citable from the start. */
  documents: Citation[];
  /** The tools on offer this turn (the project mode decides search tools). */
  tools: Tool[];
}

/** Resolves the inputs every model of a turn shares: agent, project and its files, settings, tools. */
export async function resolveTurn(
  scope: {
    chain: ChatMessageSimple[];
    session: Pick<Session, 'id' | 'generationOverride'> | null;
    agentId: AgentId | null;
    projectId: ProjectId | null;
  },
  ports: TurnPorts,
  tools: { confirmation: ConfirmationPort; signal: AbortSignal },
): Promise<ResolvedTurn> {
  const [agent, project, systemPromptOverride, calibration, toolSource, summaries] = await Promise.all([
    scope.agentId ? ports.agents.get(scope.agentId).then((found) => found ?? null) : null,
    scope.projectId ? ports.projects.get(scope.projectId).then((found) => found ?? null) : null,
    ports.loadSystemPrompt(),
    ports.loadCalibration(),
    ports.loadTools(tools.confirmation, tools.signal),
    scope.session && ports.summaries ? ports.summaries.listBySession(scope.session.id) : [],
  ]);
  const projectFiles = project ? await ports.projectFiles.list(project) : [];
  return {
    chain: scope.chain,
    session: scope.session,
    summaries,
    agent,
    project,
    systemPromptOverride,
    calibration,
    toolSource,
    projectFiles,
  };
}

/**
 * One model's context over a resolved turn: the project's fit or search decided once for this
 * model, the tools it is offered, and the context engine closed over all of it (the loop calls
 * `assemble` once per cycle). `onAssembled` sees each assembled request before it is sent.
 */
export function prepareContext(
  turn: ResolvedTurn,
  provider: ProviderConfig,
  modelId: string,
  ports: TurnPorts,
  onAssembled?: (context: AssembledContext) => void,
): PreparedContext {
  const model = ports.resolveModel(provider, modelId);
  // The answer length set for the agent or the chat changes what the context keeps free.
  const generation = resolveGeneration(turn.agent, turn.session, model);
  const { reservedOutputTokens } = generation;
  const project = turn.project
    ? scopeProject(turn.project, turn.projectFiles, model, reservedOutputTokens)
    : null;
  // Files that are searched: the project's index and query model load while the model writes
  // its first step, not when it first calls search_project. The search reports any failure.
  if (project?.mode === 'search') void ports.projectFiles.search.prepare(project.project.id);
  const tools = offeredTools(turn, project, model, ports);
  const agent = turn.agent ?? createDefaultAgent(ports.clock.now());
  const key = `${provider.id}/${model.id}`;
  // Only models whose tokenizer we lack need correcting (the catch-all encoding).
  const isCalibrated = model.encoding === 'default';
  const calibrationFactor = isCalibrated ? turn.calibration.factor(key) : 1;
  const contextTools = (offered: ToolDefinition[]): ContextTool[] =>
    offered.map((definition) => {
      const tool = tools.find((t) => t.name === definition.name);
      return { ...definition, ...(tool ? { usage: tool.usage, isSearch: tool.isSearch } : {}) };
    });
  const assemble: PreparedContext['assemble'] = (cycle) => {
    const result = assembleContext({
      chain: turn.chain,
      turnSteps: cycle.turnSteps,
      agent,
      project: project ? { project: project.project, files: project.files, mode: project.mode } : null,
      systemPromptOverride: turn.systemPromptOverride,
      tools: contextTools(cycle.tools),
      hasSearchRunInTurn: cycle.hasSearchRun,
      isLastCycle: cycle.isLastCycle,
      model,
      providerKind: provider.kind,
      ...(reservedOutputTokens === undefined ? {} : { reservedOutputTokens }),
      clock: ports.clock,
      tokenCounter: ports.tokens,
      calibrationFactor,
      summaries: turn.summaries,
    });
    if (!result.ok) return { ok: false, error: { code: result.error.code, message: result.error.message } };
    onAssembled?.(result.value);
    return {
      ok: true,
      value: {
        messages: result.value.messages.map((m) => m.message),
        // Undo the calibration: the factor is learned from raw estimates.
        estimatedInputTokens: (result.value.totalTokens + result.value.budget.toolTokens) / calibrationFactor,
        nextDocumentNumber: result.value.nextDocumentNumber,
        outputTokenRoom: measureOutputRoom(result.value),
        cacheBreakpoints: selectCacheBreakpoints(result.value.messages),
      },
    };
  };
  return {
    model,
    generation,
    assemble,
    tools,
    documents: project?.documents ?? [],
    ...(isCalibrated
      ? { onStepUsage: (estimated: number, usage: Usage) => turn.calibration.learn(key, estimated, usage) }
      : {}),
  };
}

/** Every tool one model's turn offers: the base ones, the project's, and the configured ones. */
function offeredTools(turn: ResolvedTurn, project: ProjectScope | null, model: ModelInfo, ports: TurnPorts): Tool[] {
  if (!model.hasTools) return [];
  // read_file only makes sense when there are files: a project, or attachments in the chain.
  const hasFiles = project !== null || turn.chain.some((m) => m.role === 'user' && m.attachments.length > 0);
  const projectTools = hasFiles
    ? selectProjectTools({
        projectId: project?.project.id ?? null,
        mode: project?.mode ?? null,
        search: ports.projectFiles.search,
        reader: ports.projectFiles.reader,
      })
    : [];
  const chatTools = selectChatTools({ agent: turn.agent, search: ports.chatHistory, sessionId: turn.session?.id ?? null });
  return [
    ...(ports.baseTools ?? []),
    ...projectTools,
    ...chatTools,
    ...turn.toolSource.toolsFor({ agent: turn.agent, chain: turn.chain }),
  ];
}

/* ---- The preview: "what would be sent now", through the same assembly as a send. ---- */

export const previewRequestSchema = z.object({
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
});
export type PreviewRequest = z.input<typeof previewRequestSchema>;

export interface PreviewPorts extends TurnPorts {
  sessions: SessionStore;
  messages: MessageStore;
  providers: ProviderStore;
}

/** Never asks: a preview runs no tool, so nothing risky is ever confirmed. */
const REFUSE_ALL: ConfirmationPort = { requestConfirmation: () => Promise.resolve(false) };

/**
 * The context engine's full answer for the next request (messages with kinds and tokens,
 * budget, dropped items, project mode): the draft as the newest message, resolved and
 * assembled exactly as sending it would, without calling a model or writing anything.
 */
export async function previewTurn(
  request: z.output<typeof previewRequestSchema>,
  ports: PreviewPorts,
): Promise<Result<AssembledContext, { code: string; message: string }>> {
  const provider = await ports.providers.get(request.model.providerId);
  if (!provider) return { ok: false, error: { code: 'no_provider', message: 'That provider is no longer configured.' } };
  const session = request.sessionId ? ((await ports.sessions.get(asSessionId(request.sessionId))) ?? null) : null;
  const history = session?.currentLeafId ? await ports.messages.loadChain(session.currentLeafId) : [];
  const draft = draftMessage(request.text, request.attachments, session?.id ?? null, history.at(-1)?.id ?? null, ports);
  const agentId = session ? session.agentId : (request.agentId ?? null);
  const projectId = session ? session.projectId : (request.projectId ?? null);
  const turn = await resolveTurn(
    {
      chain: [...history, draft],
      session,
      agentId: agentId === null ? null : asAgentId(agentId),
      projectId: projectId === null ? null : asProjectId(projectId),
    },
    ports,
    { confirmation: REFUSE_ALL, signal: new AbortController().signal },
  );
  let assembled: AssembledContext | undefined;
  const prepared = prepareContext(turn, provider, request.model.modelId, ports, (context) => {
    assembled = context;
  });
  const result = prepared.assemble({
    turnSteps: [],
    tools: prepared.tools.map(toToolDefinition),
    hasSearchRun: false,
    isLastCycle: false,
  });
  if (!result.ok) return result;
  if (!assembled) return { ok: false, error: { code: 'internal', message: 'The context engine returned nothing.' } };
  return { ok: true, value: assembled };
}

function draftMessage(
  text: string,
  attachments: Attachment[],
  sessionId: string | null,
  parentId: ChatMessageSimple['id'] | null,
  ports: Pick<TurnPorts, 'tokens' | 'clock'>,
): UserMessage {
  const now = ports.clock.now();
  return {
    id: asMessageId('draft'),
    sessionId: asSessionId(sessionId ?? 'draft'),
    parentId,
    role: 'user',
    text,
    textTokenCount: ports.tokens.count(text),
    attachments,
    isPinned: false,
    isExcluded: false,
    createdAt: now,
    updatedAt: now,
  };
}
