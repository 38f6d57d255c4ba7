/**
 * A person's own search of a project's files (the project screen's search box): the same
 * ProjectSearch the agent's search_project tool uses, with one query, plus why a search ran on
 * keywords alone, so the screen can say so.
 */
import { z } from 'zod';
import { projectIdSchema, type ProjectId } from '../../core/model';
import type {
  ChunkStore,
  Embedder,
  ProjectSearch,
  ProjectSearchHit,
  ProjectSearchMode,
} from '../../core/ports';
import type { WorkerResult } from './agent.api';

/** Longer queries are not searches but pasted documents; the box refuses them plainly. */
export const MAX_PROJECT_QUERY_CHARS = 1_000;

export const projectSearchRequestSchema = z.object({
  projectId: projectIdSchema,
  query: z
    .string()
    .trim()
    .min(1, 'Type something to search for.')
    .max(
      MAX_PROJECT_QUERY_CHARS,
      `A search is at most ${MAX_PROJECT_QUERY_CHARS.toLocaleString('en-US')} characters.`,
    ),
});
export type ProjectSearchRequest = z.input<typeof projectSearchRequestSchema>;

/**
 * Why a search ran on keywords (BM25) alone:
 * - `no_passages`: the project has no readable text to search;
 * - `not_embedded`: no passage has a vector of the current embedding model (none available when
 *   the files were added, still embedding, or the model changed since);
 * - `model_unavailable`: vectors exist, but the model could not load to embed the query (not
 *   stored in this browser while offline or with downloads off).
 */
export type KeywordOnlyReason = 'no_passages' | 'not_embedded' | 'model_unavailable';

export interface ProjectSearchResult {
  mode: ProjectSearchMode;
  /** Null when the search was hybrid. */
  keywordOnlyReason: KeywordOnlyReason | null;
  hits: ProjectSearchHit[];
}

/** A superseded search: the caller cancelled it and never shows this. */
export const SEARCH_CANCELLED = { code: 'aborted', message: 'The search was cancelled.' } as const;

export interface SearchProjectFilesDeps {
  search: ProjectSearch;
  chunks: Pick<ChunkStore, 'listByProject'>;
  /** The query embedder the search itself uses (cached by the loader, so asking again is cheap). */
  loadEmbedder(): Promise<Embedder | null>;
}

/** Validates the request, searches, and explains a keyword-only result. Storage errors throw. */
export async function searchProjectFiles(
  raw: unknown,
  deps: SearchProjectFilesDeps,
  signal: AbortSignal,
): Promise<WorkerResult<ProjectSearchResult>> {
  const parsed = projectSearchRequestSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      error: {
        code: 'invalid_request',
        message: parsed.error.issues[0]?.message ?? 'Invalid search.',
      },
    };
  }
  const { projectId, query } = parsed.data;
  const { mode, hits } = await deps.search.search(projectId, [query], signal);
  if (signal.aborted) return { ok: false, error: SEARCH_CANCELLED };
  const keywordOnlyReason = mode === 'hybrid' ? null : await explainKeywordOnly(projectId, deps);
  if (signal.aborted) return { ok: false, error: SEARCH_CANCELLED };
  return { ok: true, value: { mode, keywordOnlyReason, hits } };
}

/**
 * Reads the chunks again only on the keyword path. The embedder is asked for only when vectors
 * exist, as the search itself does, so explaining never loads a model the search did not.
 */
async function explainKeywordOnly(
  projectId: ProjectId,
  deps: SearchProjectFilesDeps,
): Promise<KeywordOnlyReason> {
  const chunks = await deps.chunks.listByProject(projectId);
  if (chunks.length === 0) return 'no_passages';
  if (!chunks.some((chunk) => chunk.embedding !== null)) return 'not_embedded';
  const embedder = await deps.loadEmbedder().catch(() => null);
  return embedder === null ? 'model_unavailable' : 'not_embedded';
}
