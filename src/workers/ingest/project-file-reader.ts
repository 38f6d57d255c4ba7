import type { FileStore, ProjectFileReader } from '../../core/ports';

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
