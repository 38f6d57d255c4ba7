/**
 * The agent worker's contract: the only way into the agent loop. Everything crossing it is
 * structured-cloneable; errors cross as plain `{ code, message }`, never as thrown objects.
 */
import type { SendMessageRequest, TurnResult } from '../../core/agent/process-message';
import type { Packet } from '../../core/agent/packets';
import type { AssembledContext } from '../../core/context';
import type { ChatSummary, ModelInfo } from '../../core/model';
import type { PreviewContextRequest } from './preview-context';
import type { KeywordOnlyReason, ProjectSearchRequest, ProjectSearchResult } from './search-project-files';
import type { ConfirmationRequest } from '../../core/ports';
import type { Result } from '../../util/result';
import type { SearchBackendConfig } from '../../core/agent/tools/search-backends/search-backend';
import type { McpServerConfig } from './mcp/mcp-server-config';
import type { WebToolSettings } from '../../core/agent/tools/web-tools';

/** The settings screen's shapes (web tools, MCP servers), for the UI side of the Test buttons. */
export type { McpServerConfig, SearchBackendConfig, WebToolSettings };

export type { AssembledContext, ChatSummary, ConfirmationRequest, Packet, PreviewContextRequest, SendMessageRequest, TurnResult };
export type { KeywordOnlyReason, ProjectSearchRequest, ProjectSearchResult };

export interface WorkerError {
  code: string;
  message: string;
}

export type WorkerResult<T> = Result<T, WorkerError>;

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
  /** Hits, misses and size of the worker's session cache (seed 004), for the benchmark. */
  sessionCacheStats(): Promise<{ hits: number; misses: number; size: number }>;
  /** Lists a provider's models: the Test connection button. */
  listModels(providerId: string): Promise<WorkerResult<ModelInfo[]>>;
  /**
   * The context engine's answer for "what would be sent now" (the draft as the newest message)
   * or, with `userMessageId`, for the request that answered that question: recomputed from
   * storage, nothing kept. Tool steps inside that turn are not replayed (its first cycle).
   */
  previewContext(request: PreviewContextRequest): Promise<WorkerResult<AssembledContext>>;
  /** The composer's draft count: tokens of `text` by the default encoding, counted off the UI thread. */
  countTokens(text: string): Promise<WorkerResult<number>>;
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
   * "Compact now": summarises the oldest turns of the chat's visible branch (the newest stay
   * verbatim); null when there is nothing to summarise. Nothing is deleted.
   */
  compactNow(sessionId: string): Promise<WorkerResult<ChatSummary | null>>;
  /** "Undo compaction": the visible branch's summary is kept but no longer sent; null if none. */
  undoCompaction(sessionId: string): Promise<WorkerResult<ChatSummary | null>>;
  /** The chat's summaries, undone ones too, oldest first. */
  listSummaries(sessionId: string): Promise<WorkerResult<ChatSummary[]>>;
}

/** What agent.worker.ts exposes: the API, plus the wiring the composition root does once. */
export interface AgentWorkerEntry extends AgentWorkerApi {
  /** A port on the generation worker, where the built-in model runs (see generation.api.ts). */
  connectGeneration(port: MessagePort): void;
}
