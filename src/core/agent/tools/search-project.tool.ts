import { z } from 'zod';
import type { ProjectId } from '../../model';
import type { ProjectSearch } from '../../ports';
import type { Tool } from './tool';

export const SEARCH_PROJECT_TOOL_NAME = 'search_project';
export const MAX_SEARCH_QUERIES = 5;

const searchProjectInputSchema = z.object({
  queries: z
    .array(z.string().trim().min(1))
    .min(1)
    .max(MAX_SEARCH_QUERIES)
    .describe(
      'One to five short search queries, each phrased differently (keywords or a question).',
    ),
});
export type SearchProjectInput = z.infer<typeof searchProjectInputSchema>;

/**
 * Searches the project's files (hybrid BM25 + embeddings, or BM25 alone before embeddings
 * exist). Passages come back as documents; the loop numbers them for citation.
 */
export function createSearchProjectTool(deps: {
  projectId: ProjectId;
  search: ProjectSearch;
}): Tool<SearchProjectInput> {
  return {
    name: SEARCH_PROJECT_TOOL_NAME,
    description:
      "Searches the current project's files and returns the most relevant passages, each with its file name and position (page, section).",
    usage:
      'Use search_project when the answer may be in the project files and they are not all in your context. Pass several phrasings of the question at once.',
    isSearch: true,
    inputSchema: searchProjectInputSchema,
    async execute(input, { signal }) {
      const { hits } = await deps.search.search(deps.projectId, input.queries, signal);
      return {
        kind: 'documents',
        documents: hits.map((hit) => ({
          title: hit.fileName,
          ...(hit.location !== '' ? { metadata: hit.location } : {}),
          contents: hit.text,
          fileId: hit.fileId,
          ...(hit.location !== '' ? { location: hit.location } : {}),
        })),
        emptyNotice: `No passage of the project files matched ${input.queries.map((query) => `"${query}"`).join(', ')}. Try other words, or read a file with the read_file tool.`,
      };
    },
  };
}
