/**
 * The only way the pure core reaches the world. Implementations live in `llm/`, `storage/`,
 * `workers/` (and fakes in `test/fakes/`); the core never imports them.
 */
import type {
  Agent,
  AgentId,
  ChatMessageSimple,
  ChatSummary,
  FileId,
  FileStatus,
  GenerationControls,
  LlmEvent,
  LlmMessage,
  MessageId,
  ModelInfo,
  ModelRef,
  Project,
  ProjectId,
  ProviderConfig,
  ProviderId,
  SavedPrompt,
  Session,
  SessionId,
  ToolDefinition,
  Usage,
} from './model';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** IANA time zone of the user, e.g. "Europe/Paris". */
  timeZone(): string;
}

export interface Ids {
  newId(): string;
}

export type TokenEncodingName = 'o200k_base' | 'cl100k_base' | 'default';

export interface TokenCounter {
  /** Counts tokens with the given encoding (the default catch-all when omitted). */
  count(text: string, encoding?: TokenEncodingName): number;
}

export interface LlmRequest {
  provider: ProviderConfig;
  modelId: string;
  messages: LlmMessage[];
  /** Declared without execute: the agent loop runs tools itself. */
  tools: ToolDefinition[];
  maxOutputTokens?: number;
  /** Temperature, top-p, reasoning effort, thinking budget: each only when set. */
  controls?: GenerationControls;
  /**
   * Indexes of the messages that end a stable prefix, for providers that cache only up to a
   * marked message (Anthropic); the others cache stable prefixes on their own.
   */
  cacheBreakpoints?: number[];
  /**
   * A stable key for the conversation: providers that route requests by it (OpenAI's
   * `prompt_cache_key`) send a chat's turns to the machine that holds its cached prefix.
   */
  cacheKey?: string;
}

export interface LlmClient {
  /**
   * Streams one inference. Never throws for provider or network failures: they arrive as an
   * `error` event followed by `finish`. Aborting the signal closes the request.
   */
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent>;
  /** Lists the models the provider says it has (throws a typed LlmError-carrying error). */
  listModels(provider: ProviderConfig, signal: AbortSignal): Promise<ModelInfo[]>;
}

export interface SessionStore {
  create(session: Session): Promise<void>;
  get(id: SessionId): Promise<Session | undefined>;
  list(): Promise<Session[]>;
  /** Applies the patch, bumps `version` and `updatedAt`, returns the new row. */
  update(id: SessionId, patch: Partial<Omit<Session, 'id' | 'version'>>): Promise<Session>;
  delete(id: SessionId): Promise<void>;
}

export interface MessageStore {
  /** Inserts or replaces one message (and bumps its session's version). */
  put(message: ChatMessageSimple): Promise<void>;
  get(id: MessageId): Promise<ChatMessageSimple | undefined>;
  /** The chain from the root to `leafId`, oldest first, by walking parent links. */
  loadChain(leafId: MessageId): Promise<ChatMessageSimple[]>;
  /** Direct children of a message (siblings of a branch), oldest first. */
  children(sessionId: SessionId, parentId: MessageId | null): Promise<ChatMessageSimple[]>;
  /** Messages still marked `streaming` (left by a closed tab), for recovery on load. */
  listStreaming(): Promise<ChatMessageSimple[]>;
}

export interface ProviderStore {
  list(): Promise<ProviderConfig[]>;
  get(id: ProviderId): Promise<ProviderConfig | undefined>;
  put(provider: ProviderConfig): Promise<void>;
  delete(id: ProviderId): Promise<void>;
}

export interface AgentStore {
  list(): Promise<Agent[]>;
  get(id: AgentId): Promise<Agent | undefined>;
  put(agent: Agent): Promise<void>;
  delete(id: AgentId): Promise<void>;
}

/** The prompt library: saved prompts the composer inserts with `/`. */
export interface PromptStore {
  list(): Promise<SavedPrompt[]>;
  get(id: string): Promise<SavedPrompt | undefined>;
  put(prompt: SavedPrompt): Promise<void>;
  delete(id: string): Promise<void>;
}

export interface ProjectStore {
  list(): Promise<Project[]>;
  get(id: ProjectId): Promise<Project | undefined>;
  put(project: Project): Promise<void>;
  delete(id: ProjectId): Promise<void>;
}

export interface SettingsStore {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
}

/* ---- Storage ports. ---- */

/** Where a chunk of text starts in its file, for page maps and citations. */
export interface PageSpan {
  page: number;
  /** Character offset of the page's first character in the extracted text. */
  offset: number;
}

/** A project file or attachment as stored: the blob plus what ingestion extracted from it. */
export interface StoredFile {
  id: FileId;
  /** Null for a chat attachment that belongs to no project. */
  projectId: ProjectId | null;
  name: string;
  mimeType: string;
  sizeBytes: number;
  /** Hex SHA-256 of the bytes, used to skip re-ingesting the same file. */
  hash: string;
  /** Empty while `isBlobRemote`. */
  blob: Blob;
  /**
   * True for a file that arrived through sync and whose bytes are still only on the sync server
   * (its text and metadata are here); fetched when something needs them.
   */
  isBlobRemote?: boolean;
  status: FileStatus;
  text?: string;
  tokenCount: number;
  error?: string;
  pageMap?: PageSpan[];
  createdAt: number;
  updatedAt: number;
}

/** A stored file without its blob, text and page map: what a file list shows. */
export type FileInfo = Omit<StoredFile, 'blob' | 'text' | 'pageMap'>;

/** A file's id and name alone: what checking a project's stored search index needs. */
export interface FileName {
  id: FileId;
  name: string;
}

export interface FileStore {
  put(file: StoredFile): Promise<void>;
  get(id: FileId): Promise<StoredFile | undefined>;
  /** The project's files with their text, oldest first (the context inlines them). */
  listByProject(projectId: ProjectId): Promise<StoredFile[]>;
  /** The project's files without text, oldest first: reads no text however large. */
  listInfoByProject(projectId: ProjectId): Promise<FileInfo[]>;
  /**
   * The project's files' ids and names, by id: read from an index's keys, no row at all, so a
   * project of a thousand files answers in milliseconds (a row holds its file's bytes).
   */
  listNamesByProject(projectId: ProjectId): Promise<FileName[]>;
  /** One file without its text (undefined once deleted). */
  getInfo(id: FileId): Promise<FileInfo | undefined>;
  findByHash(hash: string): Promise<FileInfo[]>;
  /** Deletes the file and its chunks. */
  delete(id: FileId): Promise<void>;
}

export interface TextChunk {
  id: string;
  fileId: FileId;
  projectId: ProjectId | null;
  ordinal: number;
  text: string;
  tokenCount: number;
  /** Human-readable position, e.g. "p. 4" or "§2.1". */
  location?: string;
  embedding: Float32Array | null;
  /** The embedding model that produced `embedding`; vectors of different models never mix. */
  embeddingModel: string | null;
}

/**
 * One file's share of its project's search index, stored so that opening a project reads packed
 * arrays instead of tokenizing every chunk again: the keyword counts of its chunks (in the
 * file's own term numbering) and their vectors, row i for chunk `chunkIds[i]` (ordinal order).
 */
export interface FileSearchBlock {
  fileId: FileId;
  projectId: ProjectId | null;
  /** The layout and tokenizing it was built with; another one is rebuilt, never read. */
  format: number;
  /** The file name the title field was counted from. */
  title: string;
  chunkIds: string[];
  locations: string[];
  keywords: {
    /** The block's distinct terms, each followed by a line feed (core/rag/bm25-index.ts). */
    terms: string;
    textTermCount: number;
    /** The text field, then the title field. */
    fields: [SearchBlockField, SearchBlockField];
  };
  vectors: {
    /** The embedding models of the rows; `rowModels[i]` indexes it, -1 for a chunk without a vector. */
    models: string[];
    rowModels: Int32Array;
    /** Row i's vector is `values[offsets[i]..offsets[i + 1])`. */
    offsets: Uint32Array;
    values: Float32Array;
  };
}

export interface SearchBlockField {
  docStarts: Uint32Array;
  /** The narrower types when the values allow them (core/rag/bm25-index.ts). */
  termRefs: Uint16Array | Uint32Array;
  frequencies: Uint8Array | Uint16Array;
  lengths: Uint16Array;
}

/**
 * A project's whole search index as joined from its files' blocks, stored so that opening a
 * large project reads one row of packed arrays instead of reading and joining a block per file
 * (core/rag/search-block.ts builds, checks and restores it).
 */
export interface ProjectSearchSnapshot {
  /** The layout and tokenizing it was built with; another one is rebuilt, never read. */
  format: number;
  /** The embedding model whose vectors it holds; null: keywords alone. */
  modelId: string | null;
  /** Some chunk had a vector (of any model) when it was joined. */
  hasAnyVector: boolean;
  /** The files it was joined from, in file id order, and the names their titles were counted from. */
  fileIds: FileId[];
  fileNames: string[];
  /** Every chunk in index order: its id, its file (a position in `fileIds`) and its location. */
  chunkIds: string[];
  chunkFiles: Uint32Array;
  locations: string[];
  keywords: {
    /** The distinct terms in id order, each followed by a line feed. */
    terms: string;
    /** The text field, then the title field. */
    fields: [SnapshotKeywordField, SnapshotKeywordField];
    /** The term ids in sorted order, and the terms' trie in depth-first order (core/rag/term-dictionary.ts). */
    dictionary: { sortedIds: Int32Array; trie: FlatTrie };
  };
  vectors: {
    /** The chunk (a position in `chunkIds`) of each vector row. */
    rows: Uint32Array;
    dimensions: number;
    /** Unit rows: 8-bit with one scale per row when `scales` is set, float32 otherwise. */
    values: Int8Array | Float32Array;
    scales: Float32Array | null;
    /** Rows whose vector held a NaN or an infinity: stored as zeros, never ranked. */
    nonFiniteRows: Int32Array;
  };
}

/** What a stored snapshot was joined from, known without reading its arrays. */
export type ProjectSnapshotHead = Pick<
  ProjectSearchSnapshot,
  'format' | 'modelId' | 'hasAnyVector' | 'fileIds' | 'fileNames'
>;

/** A stored snapshot: what it was joined from, and its arrays on request. */
export interface StoredProjectSnapshot {
  head: ProjectSnapshotHead;
  /**
   * The snapshot for a search: all of it but the postings, which stay in the store and are
   * read by range as terms are searched (about half its bytes at 100,000 chunks); null when its
   * bytes do not read or do not decode.
   */
  open(): Promise<OpenedProjectSnapshot | null>;
}

/** Bytes left in the store, read by range when needed. */
export interface StoredBytes {
  readonly length: number;
  /** Bytes [start, end); rejects when the store cannot give them. */
  read(start: number, end: number): Promise<Uint8Array>;
}

/** A snapshot whose fields' postings are still in the store. */
export type OpenedProjectSnapshot = Omit<ProjectSearchSnapshot, 'keywords'> & {
  keywords: Omit<ProjectSearchSnapshot['keywords'], 'fields'> & {
    fields: [OpenedKeywordField, OpenedKeywordField];
  };
};

export type OpenedKeywordField = Omit<SnapshotKeywordField, 'postings'> & { postings: StoredBytes };

/** A trie's nodes in depth-first order (children in code-unit order); the root is implied. */
export interface FlatTrie {
  units: Uint16Array;
  /** Length of the path to the node: 1 for the root's children. */
  depths: Int32Array;
  /** Index of the first node after this node's subtree. */
  ends: Int32Array;
  /** Id of the term that ends at the node, or -1. */
  termIdsAt: Int32Array;
  shortestBelow: Int32Array;
  longestBelow: Int32Array;
}

/**
 * One field's postings: term t's are the bytes `postings[starts[t]..starts[t + 1])`, varints
 * (core/rag/bm25-index.ts says how they are laid out).
 */
export interface SnapshotKeywordField {
  starts: Int32Array;
  postings: Uint8Array;
  lengths: Uint16Array;
}

/**
 * Search blocks kept per file. Every write of a file's chunks (ingest, embedding, import,
 * deletion) drops its block and moves its revision on, so a block built from chunks read
 * before such a write is refused. The same writes drop the project's snapshot and move its
 * generation on, so a snapshot joined from blocks read before them is refused too.
 */
export interface SearchBlockStore {
  /**
   * The project's stored snapshot (null when there is none or its row does not read) and the
   * generation to store a new one at. Its arrays are read only when asked for, so a snapshot
   * of other files or another model costs no more than its row.
   */
  readSnapshot(
    projectId: ProjectId,
  ): Promise<{ generation: number; snapshot: StoredProjectSnapshot | null }>;
  /**
   * Stores the snapshot unless chunks of the project were written since `generation` was read,
   * or the project has no file left.
   */
  putSnapshot(
    projectId: ProjectId,
    snapshot: ProjectSearchSnapshot,
    generation: number,
  ): Promise<boolean>;
  /** The project's stored blocks by file; a block whose row does not read is left out. */
  listByProject(projectId: ProjectId): Promise<Map<FileId, FileSearchBlock>>;
  /** A file's chunks (ordinal order) and the revision they were read at, in one read. */
  readChunks(fileId: FileId): Promise<{ revision: number; chunks: TextChunk[] }>;
  /** Stores the block unless the file's chunks changed, or the file went, since `revision`. */
  put(block: FileSearchBlock, revision: number): Promise<boolean>;
}

export interface ChunkStore {
  /** Replaces every chunk of the file with these, in one transaction. */
  replaceForFile(fileId: FileId, chunks: TextChunk[]): Promise<void>;
  listByFile(fileId: FileId): Promise<TextChunk[]>;
  listByProject(projectId: ProjectId): Promise<TextChunk[]>;
  /** The chunks with these ids, in that order (undefined where one no longer exists). */
  getMany(ids: readonly string[]): Promise<Array<TextChunk | undefined>>;
  /** How many chunks the project has, and how many carry a vector of `embeddingModel`. */
  countByProject(
    projectId: ProjectId,
    embeddingModel: string,
  ): Promise<{ total: number; embedded: number }>;
}

/** One billed inference, kept for the usage view. */
export interface UsageRecord {
  id: string;
  sessionId: SessionId;
  messageId: MessageId;
  model: ModelRef;
  usage: Usage;
  createdAt: number;
}

/** Summaries of long chats (compaction): records that point at the messages they stand for. */
export interface SummaryStore {
  add(summary: ChatSummary): Promise<ChatSummary>;
  /** Every summary of a session, undone ones too, oldest first. */
  listBySession(sessionId: SessionId): Promise<ChatSummary[]>;
  /** Marks a summary undone: it stays stored and is no longer sent. */
  markUndone(id: string, at: number): Promise<void>;
}

export interface UsageStore {
  record(entry: Omit<UsageRecord, 'id' | 'createdAt'>): Promise<UsageRecord>;
  listBySession(sessionId: SessionId): Promise<UsageRecord[]>;
  /** Records created at or after `sinceMs`, oldest first. */
  listSince(sinceMs: number): Promise<UsageRecord[]>;
}

export interface SearchHit {
  sessionId: SessionId;
  /** Null when the session title matched. */
  messageId: MessageId | null;
  title: string;
  /** Text around the first match, with ellipses where it was cut. */
  snippet: string;
  score: number;
}

/** Full-text search across chats, kept current message by message. */
export interface SearchIndex {
  upsertSession(session: Session): void;
  removeSession(sessionId: SessionId): void;
  upsertMessage(message: ChatMessageSimple): void;
  removeMessage(messageId: MessageId): void;
  search(query: string, limit?: number, options?: SearchOptions): SearchHit[];
}

export interface SearchOptions {
  /** Leaves one chat out (the one the model is answering in). */
  excludeSessionId?: SessionId;
  /** Characters kept on each side of the first match in `snippet`. */
  snippetRadius?: number;
}

/** A passage of the user's own past chats, found for the model's search_chats tool. */
export interface ChatHistoryHit {
  sessionId: SessionId;
  messageId: MessageId;
  /** The chat's title ('' while it has none). */
  title: string;
  role: 'user' | 'assistant';
  /** The model that wrote an answer. */
  model?: ModelRef;
  createdAt: number;
  /** The message's text around the match, with ellipses where it was cut. */
  passage: string;
}

/** Searches the user's chats (titles and messages, every branch) for the search_chats tool. */
export interface ChatHistorySearch {
  /** The best passages for any of `queries`, best first, at most `limit`, none from `excludeSessionId`. */
  search(
    queries: readonly string[],
    options: { excludeSessionId: SessionId | null; limit: number },
    signal: AbortSignal,
  ): Promise<ChatHistoryHit[]>;
}

export type BackupScope =
  | { kind: 'all' }
  | { kind: 'project'; projectId: ProjectId }
  | { kind: 'session'; sessionId: SessionId };

export interface BackupImportReport {
  inserted: number;
  replaced: number;
  /** Rows already present with the same or a newer `updatedAt`. */
  kept: number;
  /**
   * Names of providers that arrived without this device's key because the backup changed their
   * address or headers; each asks for its key again.
   */
  providersWithoutKey: string[];
  /**
   * Compaction summaries the backup holds but that were not imported, each with why: a summary
   * whose chat or covered messages are not in the same backup would stand in for messages
   * this device may not have.
   */
  summariesLeftOut: string[];
}

/** How far an export (rows) or an import (bytes of the file) has got. */
export interface BackupProgress {
  done: number;
  total: number;
}

/** Long backup work reports progress and stops when its signal aborts (rejecting with its reason). */
export interface BackupWorkOptions {
  signal?: AbortSignal;
  onProgress?: (progress: BackupProgress) => void;
}

export interface Backup {
  /**
   * The backup file, built row by row, so its size is not limited by memory. API keys are
   * blanked unless `includeApiKeys` is set.
   */
  exportBackup(
    scope: BackupScope,
    options?: BackupWorkOptions & { includeApiKeys?: boolean },
  ): Promise<Blob>;
  /**
   * Reads the file as a stream, checking every row, then writes it in batches under an undo
   * journal: everything or nothing (a bad row, a file cut short, a cancel, a full disk or a
   * closed tab all leave the data as it was; a closed tab's import is undone at the next start).
   */
  importBackup(file: Blob, options?: BackupWorkOptions): Promise<BackupImportReport>;
}

/** Where a message sits among its siblings, for the ‹ n/m › switcher (index is 0-based). */
export interface SiblingPosition {
  index: number;
  count: number;
  /** Sibling ids oldest first, including the message itself. */
  ids: MessageId[];
}

/** Navigation of the message tree: edits and regenerations are siblings of the original. */
export interface MessageBranches {
  siblings(messageId: MessageId): Promise<SiblingPosition>;
  /**
   * The parents in a session that have more than one child (null: the root): a message whose
   * parent is not among them has no sibling, so a long chat learns where its forks are in one
   * read instead of asking message by message.
   */
  forkedParents(sessionId: SessionId): Promise<(MessageId | null)[]>;
  /**
   * Shows the branch through `messageId`: follows the newest child down to a leaf, makes that
   * the session's current leaf and returns it.
   */
  switchBranch(messageId: MessageId): Promise<MessageId>;
  /**
   * Deletes `messageId` and all its descendants. When that removes the current leaf, the leaf
   * moves to the parent's newest remaining descendant (or the parent, or null at the root).
   * Returns the session's current leaf afterwards.
   */
  deleteBranch(messageId: MessageId): Promise<MessageId | null>;
  /** The visible chain of a session (root to current leaf), oldest first. */
  loadVisibleChain(sessionId: SessionId): Promise<ChatMessageSimple[]>;
  /**
   * The end of `leafId`'s chain below `ancestorId` (null: the root), oldest first, read message
   * by message: what a turn added to a chain already shown. Null when `ancestorId` is not within
   * `maxLength` messages above the leaf.
   */
  loadChainBelow(
    leafId: MessageId,
    ancestorId: MessageId | null,
    maxLength: number,
  ): Promise<ChatMessageSimple[] | null>;
  /**
   * The last `maxLength` messages of `leafId`'s chain (ending with it), oldest first, in a range
   * read or two: what a long chat's first screen needs. `isComplete` says whether they reach
   * back to the root (nothing older is left to load).
   */
  loadChainEnd(
    leafId: MessageId,
    maxLength: number,
  ): Promise<{ messages: ChatMessageSimple[]; isComplete: boolean }>;
}

/**
 * Everything one chat is kept in: its session row, its message tree, its summaries and usage
 * records. A saved chat's live in IndexedDB; a temporary chat's in memory, for as long as the
 * page that holds it. The agent worker and the page pick one per chat and read through it alike.
 */
export interface ChatStores {
  sessions: SessionStore;
  messages: MessageStore & MessageBranches;
  summaries: SummaryStore;
  usage: UsageStore;
}

/** Timers for the core (the checkpointer's trailing write), injected so tests control time. */
export interface Scheduler {
  /** Runs `callback` once after `ms`; the returned function cancels it. */
  schedule(callback: () => void, ms: number): () => void;
}

/* ---- Web ports: web search, open_url and MCP tools. ---- */

export interface HttpRequest {
  method?: 'GET' | 'POST';
  headers?: Readonly<Record<string, string>>;
  body?: string;
  signal: AbortSignal;
  /** Body bytes read at most; the rest is dropped and `isTruncated` set. */
  maxBytes: number;
  /**
   * Checked on the first URL and again on every redirect hop the fetcher can see; a returned
   * reason refuses the hop. Omitted for endpoints the user configured (search APIs, proxies).
   */
  checkUrl?: (url: string) => string | null;
}

export interface HttpResponse {
  status: number;
  /** Lower-cased names (only what CORS lets the browser read). */
  headers: Record<string, string>;
  /** The final URL, after redirects. */
  url: string;
  bodyText: string;
  isTruncated: boolean;
}

export type HttpFailureCode = 'blocked' | 'network' | 'too_many_redirects';

export interface HttpFailure {
  code: HttpFailureCode;
  message: string;
}

/**
 * HTTP for the core (which has no `fetch`). Expected failures (a refused hop, a network or CORS
 * error) come back as `{ ok: false }`; an abort rejects with the signal's reason.
 */
export interface HttpFetcher {
  fetch(
    url: string,
    request: HttpRequest,
  ): Promise<{ ok: true; value: HttpResponse } | { ok: false; error: HttpFailure }>;
}

export interface ReadableText {
  title: string;
  /** The main text, paragraphs separated by blank lines. */
  text: string;
}

/** Turns an HTML page into its readable text (Readability over a worker-side DOM). */
export interface ReadableTextExtractor {
  extract(html: string, url: string): ReadableText;
}

export type ConfirmationKind = 'open_url_with_conversation_text' | 'mcp_tool';

export interface ConfirmationRequest {
  kind: ConfirmationKind;
  toolName: string;
  url?: string;
  /** One sentence for the dialog: what would happen and why we ask. */
  reason: string;
}

/** Asks the person before a risky tool call; resolves false when refused or dismissed. */
export interface ConfirmationPort {
  requestConfirmation(request: ConfirmationRequest): Promise<boolean>;
}

/* ---- Retrieval ports: projects and local RAG. ---- */

/** What a text is embedded as: some models want a different prefix for queries and passages. */
export type EmbeddingPurpose = 'query' | 'passage';

/** Turns texts into vectors with one embedding model (the embedding worker, or a fake in tests). */
export interface Embedder {
  /** Stored next to each vector so vectors of different models never mix. */
  readonly modelId: string;
  /** Where it runs, for people: "WebAssembly, 2 threads". */
  readonly runtime?: string;
  embed(
    texts: readonly string[],
    purpose: EmbeddingPurpose,
    signal: AbortSignal,
  ): Promise<Float32Array[]>;
}

export interface ProjectSearchHit {
  fileId: FileId;
  fileName: string;
  mimeType: string;
  /** The passage (one chunk). */
  text: string;
  /** Page, heading path and character range, as core/rag formatChunkLocation writes it. */
  location: string;
  score: number;
}

/** `keyword`: BM25 alone, because the project has no vectors of the current model yet. */
export type ProjectSearchMode = 'hybrid' | 'keyword';

/**
 * Why a search ran on keywords (BM25) alone:
 * - `no_passages`: the project has no readable text to search;
 * - `not_embedded`: no passage has a vector of the current embedding model (none available when
 *   the files were added, still embedding, or the model changed since);
 * - `model_unavailable`: vectors exist, but the model could not load to embed the query (not
 *   stored in this browser while offline or with downloads off).
 */
export type KeywordOnlyReason = 'no_passages' | 'not_embedded' | 'model_unavailable';

export interface ProjectSearch {
  /**
   * Readies a project for its first search while the person is still typing: its stored index is
   * read and the embedding model loaded (a second on a cold start), when the stored index is
   * current. Nothing is built or downloaded that a search would not need. Never rejects: a
   * search says what went wrong.
   */
  prepare(projectId: ProjectId): Promise<void>;
  search(
    projectId: ProjectId,
    queries: readonly string[],
    signal: AbortSignal,
  ): Promise<{
    mode: ProjectSearchMode;
    /** Null when the search was hybrid. */
    keywordOnlyReason: KeywordOnlyReason | null;
    hits: ProjectSearchHit[];
  }>;
}

/** A stored file's extracted text, for the read-file tool. */
export interface ReadableFile {
  id: FileId;
  projectId: ProjectId | null;
  name: string;
  mimeType: string;
  status: FileStatus;
  text?: string;
  error?: string;
  pageMap?: PageSpan[];
}

export interface ProjectFileReader {
  read(fileId: FileId): Promise<ReadableFile | undefined>;
}
