import type { ProjectFile, ProjectId } from '../../core/model';
import type { FileStore, StoredFile } from '../../core/ports';

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

/** For AgentDeps.loadProjectFiles: the project's files, oldest first. */
export async function loadProjectFiles(
  files: FileStore,
  projectId: ProjectId,
): Promise<ProjectFile[]> {
  return (await files.listByProject(projectId)).map(toProjectFile);
}
