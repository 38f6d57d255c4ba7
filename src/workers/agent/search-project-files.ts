/**
 * A person's own search of a project's files (the project screen's search box): the same
 * ProjectSearch the agent's search_project tool uses, with one query, plus why a search ran on
 * keywords alone, so the screen can say so.
 */
import type { ProjectSearch } from '../../core/ports';
import { parseCall, type WorkerResult } from '../protocol';
import { projectSearchRequestSchema, SEARCH_CANCELLED, type ProjectSearchResult } from './agent.api';

/** Validates the request and searches; the search says why it ran on keywords alone. Storage errors throw. */
export async function searchProjectFiles(
  raw: unknown,
  search: ProjectSearch,
  signal: AbortSignal,
): Promise<WorkerResult<ProjectSearchResult>> {
  const parsed = parseCall(projectSearchRequestSchema, raw, 'Invalid search.');
  if (!parsed.ok) return parsed;
  const { projectId, query } = parsed.value;
  const { mode, keywordOnlyReason, hits } = await search.search(projectId, [query], signal);
  if (signal.aborted) return { ok: false, error: SEARCH_CANCELLED };
  return { ok: true, value: { mode, keywordOnlyReason, hits } };
}
