import { decideProjectMode } from '../context';
import type { ProjectMode } from '../context/types';
import type { Citation, ModelInfo, Project, ProjectFile } from '../model';
import type { ProjectFileReader, ProjectSearch } from '../ports';

/**
 * A project's files as a turn reaches them: listed for the context, searched by the
 * search_project tool, read by read_file. One owner (the agent worker's project files) answers
 * all three over the same stores.
 */
export interface ProjectFilesPort {
  /** The project's files, oldest first, with their text and token counts. */
  list(project: Project): Promise<ProjectFile[]>;
  search: ProjectSearch;
  reader: ProjectFileReader;
}

/** A project as one model's turn sees it: its files and whether they go inline or are searched. */
export interface ProjectScope {
  project: Project;
  files: ProjectFile[];
  /** Decided once here; the context, the tools on offer and the citable documents follow it. */
  mode: ProjectMode;
  /** Inline files are documents 1..n in file order, each citation carrying its file's id. */
  documents: Citation[];
}

/** Decides fit or search for one model: the single place a turn asks. */
export function scopeProject(
  project: Project,
  files: ProjectFile[],
  model: ModelInfo,
  reservedOutputTokens?: number,
): ProjectScope {
  const mode = decideProjectMode(files, model, reservedOutputTokens);
  const documents =
    mode === 'inline' ? files.map((file, index) => ({ number: index + 1, title: file.name, fileId: file.id })) : [];
  return { project, files, mode, documents };
}
