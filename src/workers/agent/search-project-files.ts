/**
 * A person's own search of a project's files (the project screen's search box): the same
 * ProjectSearch the agent's search_project tool uses, with one query, plus why a search ran on
 * keywords alone, so the screen can say so.
 */
import { z } from 'zod';
import { projectIdSchema } from '../../core/model';
import type {
  KeywordOnlyReason,
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

export interface ProjectSearchResult {
  mode: ProjectSearchMode;
  /** Null when the search was hybrid. */
  keywordOnlyReason: KeywordOnlyReason | null;
  hits: ProjectSearchHit[];
}

/** A superseded search: the caller cancelled it and never shows this. */
export const SEARCH_CANCELLED = { code: 'aborted', message: 'The search was cancelled.' } as const;

export type { KeywordOnlyReason };

export interface SearchProjectFilesDeps {
  search: ProjectSearch;
}

/** Validates the request and searches; the search says why it ran on keywords alone. Storage errors throw. */
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
  const { mode, keywordOnlyReason, hits } = await deps.search.search(projectId, [query], signal);
  if (signal.aborted) return { ok: false, error: SEARCH_CANCELLED };
  return { ok: true, value: { mode, keywordOnlyReason, hits } };
}
