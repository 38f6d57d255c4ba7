/**
 * The project files a turn reaches, over one set of stores: listed for the context (text and
 * token counts, no blob), searched (BM25 and embeddings, the index kept per project until its
 * files or chunks change) and read by id. Files get here through the ingest worker (extract,
 * count, chunk) and the embedding worker (vectors); whether they go inline or are searched is
 * decided per model by turn assembly (`core/agent/project-scope.ts`).
 */
import type { ProjectFilesPort } from '../../core/agent/project-scope';
import type { ProjectFile, ProjectId } from '../../core/model';
import type { FileStore, ProjectFileReader, StoredFile } from '../../core/ports';
import { createProjectSearch, type ProjectSearchDeps } from '../embedding/project-search';

/** A stored file as the context engine sees it: text and token count, no blob. */
export function toProjectFile(file: StoredFile): ProjectFile {
  return {
    id: file.id,
    name: file.name,
    mimeType: file.mimeType,
    sizeBytes: file.sizeBytes,
    status: file.status,
    ...(file.text !== undefined ? { text: file.text } : {}),
    tokenCount: file.tokenCount,
    ...(file.error !== undefined ? { error: file.error } : {}),
  };
}

/** The project's files, oldest first. */
export async function loadProjectFiles(files: FileStore, projectId: ProjectId): Promise<ProjectFile[]> {
  return (await files.listByProject(projectId)).map(toProjectFile);
}

/** The read-file tool's port over the file store (the blob stays behind). */
export function createProjectFileReader(files: FileStore): ProjectFileReader {
  return {
    async read(fileId) {
      const file = await files.get(fileId);
      if (file === undefined) return undefined;
      const {
        blob: _blob,
        hash: _hash,
        sizeBytes: _size,
        tokenCount: _tokens,
        createdAt: _created,
        updatedAt: _updated,
        ...readable
      } = file;
      return readable;
    },
  };
}

/** One owner for listing, searching and reading a project's files (the search keeps its index). */
export function createProjectFiles(deps: ProjectSearchDeps): ProjectFilesPort {
  return {
    list: (project) => loadProjectFiles(deps.files, project.id),
    search: createProjectSearch(deps),
    reader: createProjectFileReader(deps.files),
  };
}
