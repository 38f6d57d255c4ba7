/**
 * The agent worker's contract: the only way into the agent loop. Everything crossing it is
 * structured-cloneable; errors cross as plain `{ code, message }`, never as thrown objects.
 */
import { z } from 'zod';
import type { PreviewRequest as PreviewContextRequest } from '../../core/agent/assemble-turn';
import type { SendMessageRequest, TurnResult } from '../../core/agent/process-message';
import type { Packet } from '../../core/agent/packets';
import type { AssembledContext } from '../../core/context';
import { projectIdSchema, type ChatSummary, type ModelInfo } from '../../core/model';
import type { McpServerConfig } from '../../core/model/settings';
import type {
  ConfirmationRequest,
  FileStore,
  KeywordOnlyReason,
  MessageBranches,
  MessageStore,
  ProjectSearchHit,
  ProjectSearchMode,
  SessionStore,
} from '../../core/ports';
import type { SearchBackendConfig } from '../../core/agent/tools/search-backends/search-backend';
import type { WebToolSettings } from '../../core/agent/tools/web-tool-settings';
import type { CallKinds, WorkerError, WorkerResult } from '../protocol';

/** The settings screen's shapes (web tools, MCP servers), for the UI side of the Test buttons. */
export type { McpServerConfig, SearchBackendConfig, WebToolSettings };

export type { AssembledContext, ChatSummary, ConfirmationRequest, Packet, PreviewContextRequest, SendMessageRequest, TurnResult };
export type { KeywordOnlyReason, WorkerError, WorkerResult };

/** Longer queries are not searches but pasted documents; the search box refuses them plainly. */
export const MAX_PROJECT_QUERY_CHARS = 1_000;

export const projectSearchRequestSchema = z.object({
  projectId: projectIdSchema,
  query: z
    .string()
    .trim()
    .min(1, 'Type something to search for.')
    .max(MAX_PROJECT_QUERY_CHARS, `A search is at most ${MAX_PROJECT_QUERY_CHARS.toLocaleString('en-US')} characters.`),
});
export type ProjectSearchRequest = z.input<typeof projectSearchRequestSchema>;

export interface ProjectSearchResult {
  mode: ProjectSearchMode;
  /** Null when the search was hybrid. */
  keywordOnlyReason: KeywordOnlyReason | null;
  hits: ProjectSearchHit[];
}

/** A superseded search: the caller cancelled it and never shows this. */
export const SEARCH_CANCELLED = { code: 'aborted', message: 'The search was cancelled.' } as const;

/**
 * A temporary chat's reads and edits, made by the page on the worker's memory exactly as it
 * makes them on the database for a saved chat (the same store calls, the same answers).
 */
export interface TemporaryChatCalls {
  getSession: SessionStore['get'];
  updateSession: SessionStore['update'];
  getMessage: MessageStore['get'];
  putMessage: MessageStore['put'];
  loadChain: MessageStore['loadChain'];
  children: MessageStore['children'];
  listStreaming: MessageStore['listStreaming'];
  siblings: MessageBranches['siblings'];
  forkedParents: MessageBranches['forkedParents'];
  switchBranch: MessageBranches['switchBranch'];
  deleteBranch: MessageBranches['deleteBranch'];
  loadVisibleChain: MessageBranches['loadVisibleChain'];
  loadChainBelow: MessageBranches['loadChainBelow'];
  loadChainEnd: MessageBranches['loadChainEnd'];
  getFile: FileStore['get'];
  putFile: FileStore['put'];
}
export type TemporaryChatCall = keyof TemporaryChatCalls;

/** Packets arrive in batches (one per ≤ 16 ms) so a fast stream does not flood postMessage. */
export type PacketListener = (packets: Packet[]) => void;

/** Asks the person before a risky tool call (a URL carrying chat text, an unallowed MCP tool). */
export type ConfirmListener = (request: ConfirmationRequest) => Promise<boolean>;

export interface AgentWorkerApi {
  /**
   * Runs one turn. `runId` lets the caller stop a run before its session exists. Resolves when
   * every model stopped and everything was saved.
   */
  send(
    runId: string,
    request: SendMessageRequest,
    onPackets: PacketListener,
    onConfirm?: ConfirmListener,
  ): Promise<WorkerResult<TurnResult>>;
  /**
   * Marks answers left `streaming` by a closed tab as interrupted (unless a tab is still running
   * their session). Called once at start-up; returns how many were recovered.
   */
  recoverInterrupted(): Promise<number>;
  /** Stops a run by run id or session id; the partial answer is kept, marked stopped. */
  stop(runIdOrSessionId: string): Promise<void>;
  /** Hits, misses and size of the worker's session cache (recent chats' chains), for the benchmark. */
  sessionCacheStats(): Promise<{ hits: number; misses: number; size: number }>;
  /** Lists a provider's models: the Test connection button. */
  listModels(providerId: string): Promise<WorkerResult<ModelInfo[]>>;
  /**
   * The context engine's answer for "what would be sent now": the draft as the newest message,
   * resolved and assembled exactly as sending it would.
   */
  previewContext(request: PreviewContextRequest): Promise<WorkerResult<AssembledContext>>;
  /**
   * The last request that answered this question (its first model's, the final cycle of the
   * turn), exactly as it was sent: recorded when this worker sent it, so a question answered
   * before the page opened (or in another tab) has none.
   */
  lastRequest(userMessageId: string): Promise<WorkerResult<AssembledContext>>;
  /** The composer's draft count: tokens of `text` by the default encoding, counted off the UI thread. */
  countTokens(text: string): Promise<WorkerResult<number>>;
  /**
   * Tokens of each text by the default encoding, in order: imports that store counts (a ChatGPT
   * export) use the worker's tokenizer, so the page never loads a copy of its own.
   */
  countTokensOfEach(texts: string[]): Promise<WorkerResult<number[]>>;
  /** The web tools settings' Test button: one small search with the given (unsaved) settings. */
  testWebSearch(config: SearchBackendConfig): Promise<WorkerResult<{ resultCount: number }>>;
  /** The MCP settings' Test button: connects, lists the server's tools, disconnects. */
  testMcpServer(config: McpServerConfig): Promise<WorkerResult<{ serverName: string; toolNames: string[] }>>;
  /** Compare mode: stops one model of a run (its partial answer kept, marked stopped); the others go on. */
  stopModel(runId: string, modelIndex: number): Promise<void>;
  /**
   * The project screen's search box: one query over the project's files, by keywords (BM25) and,
   * when the embedding model loads, by meaning; says why when it was keywords alone. `searchId`
   * lets the caller cancel it (a newer query superseded it): it then answers `aborted`.
   */
  searchProject(searchId: string, request: ProjectSearchRequest): Promise<WorkerResult<ProjectSearchResult>>;
  /** Cancels a project search still running; an unknown or finished id is ignored. */
  cancelProjectSearch(searchId: string): Promise<void>;
  /**
   * The project screen opened: its stored index is read and the embedding model loaded while
   * the person types, so the first search answers as fast as the next (ProjectSearch.prepare).
   */
  prepareProjectSearch(projectId: string): Promise<void>;
  /**
   * "Compact now": summarises the oldest turns of the chat's visible branch (the newest stay
   * verbatim); null when there is nothing to summarise. Nothing is deleted.
   */
  compactNow(sessionId: string): Promise<WorkerResult<ChatSummary | null>>;
  /** "Undo compaction": the visible branch's summary is kept but no longer sent; null if none. */
  undoCompaction(sessionId: string): Promise<WorkerResult<ChatSummary | null>>;
  /** The chat's summaries, undone ones too, oldest first. */
  listSummaries(sessionId: string): Promise<WorkerResult<ChatSummary[]>>;
  /**
   * One store call on a temporary chat (kept in this worker's memory, never in the database);
   * it rejects as the store would (a message that does not exist, a row that does not parse).
   */
  temporaryChat<K extends TemporaryChatCall>(call: K, args: Parameters<TemporaryChatCalls[K]>): ReturnType<TemporaryChatCalls[K]>;
  /**
   * "Save this chat": writes the temporary chat (every branch, its attachments as its messages
   * hold them, summaries and usage) to the database as a saved chat with new ids, and forgets
   * the temporary one. Refused while it answers.
   */
  saveTemporaryChat(sessionId: string): Promise<WorkerResult<{ sessionId: string }>>;
  /** The person left a temporary chat: its run stops and it is forgotten. */
  discardTemporaryChat(sessionId: string): Promise<void>;
  /**
   * A temporary chat's title once the model-written one (if being written) is in: shown, never
   * stored. Null when the chat is gone.
   */
  temporaryChatTitle(sessionId: string): Promise<string | null>;
}

/** What agent.worker.ts exposes: the API, plus the wiring the composition root does once. */
export interface AgentWorkerEntry extends AgentWorkerApi {
  /**
   * A port on the generation worker, where the built-in model runs (see generation.api.ts), and
   * how to ask for a fresh one when that worker could not set itself up: a new port follows.
   */
  connectGeneration(port: MessagePort, renew: () => void): void;
}

/** How each call reports a worker that could not set up (see `CallKinds`). */
export const AGENT_CALLS: CallKinds<AgentWorkerApi> = {
  send: 'result',
  recoverInterrupted: 'throws',
  stop: 'throws',
  sessionCacheStats: 'throws',
  listModels: 'result',
  previewContext: 'result',
  lastRequest: 'result',
  countTokens: 'result',
  countTokensOfEach: 'result',
  testWebSearch: 'result',
  testMcpServer: 'result',
  stopModel: 'throws',
  searchProject: 'result',
  cancelProjectSearch: 'throws',
  prepareProjectSearch: 'throws',
  compactNow: 'result',
  undoCompaction: 'result',
  listSummaries: 'result',
  temporaryChat: 'throws',
  saveTemporaryChat: 'result',
  discardTemporaryChat: 'throws',
  temporaryChatTitle: 'throws',
};
