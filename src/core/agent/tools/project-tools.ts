import type { ProjectMode } from '../../context/types';
import type { ProjectId } from '../../model';
import type { ProjectFileReader, ProjectSearch } from '../../ports';
import { createReadFileTool } from './read-file.tool';
import { createSearchProjectTool } from './search-project.tool';
import type { Tool } from './tool';

export interface ProjectToolsArgs {
  /** The session's project, or null for a chat outside any project. */
  projectId: ProjectId | null;
  /** decideProjectMode() for this model; null without a project. */
  mode: ProjectMode | null;
  search: ProjectSearch;
  reader: ProjectFileReader;
}

/**
 * The file tools a turn offers: in search mode both search_project and read_file (the
 * citation reminder follows from search_project being a search tool); otherwise read_file
 * alone, so a file dropped from the context can still be read again by its id.
 */
export function selectProjectTools(args: ProjectToolsArgs): Tool[] {
  const readFile = createReadFileTool({ projectId: args.projectId, reader: args.reader }) as Tool;
  if (args.projectId === null || args.mode !== 'search') return [readFile];
  return [createSearchProjectTool({ projectId: args.projectId, search: args.search }), readFile];
}
