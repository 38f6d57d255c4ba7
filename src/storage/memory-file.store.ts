/**
 * Files kept in memory: the attachments of a temporary chat, which never reach the database.
 * The same port as the IndexedDB file store; copies go in and out (the blob itself is shared,
 * as Blobs cannot change).
 */
import type { FileId } from '../core/model';
import type { FileInfo, FileStore, StoredFile } from '../core/ports';
import { compareByCreation, compareIds } from '../util/compare';
import { parseStored } from './parse-row';
import { storedFileSchema } from './file.store';

function infoOf(file: StoredFile): FileInfo {
  const { blob: _blob, text: _text, pageMap: _pageMap, ...info } = file;
  return structuredClone(info);
}

function copyFile(file: StoredFile): StoredFile {
  const { blob, ...rest } = file;
  return { ...structuredClone(rest), blob };
}

export function createMemoryFileStore(): FileStore {
  const files = new Map<string, StoredFile>();
  // Oldest first, then by id: the order of IndexedDB's listing (its index holds the id next).
  const byCreation = (): StoredFile[] => [...files.values()].sort(compareByCreation);
  return {
    put: (file) => {
      try {
        files.set(file.id, copyFile(parseStored(storedFileSchema, file, `File ${file.id}`)));
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    get: (id: FileId) => {
      const file = files.get(id);
      return Promise.resolve(file === undefined ? undefined : copyFile(file));
    },
    listByProject: (projectId) => Promise.resolve(byCreation().filter((f) => f.projectId === projectId).map(copyFile)),
    listInfoByProject: (projectId) => Promise.resolve(byCreation().filter((f) => f.projectId === projectId).map(infoOf)),
    listNamesByProject: (projectId) =>
      Promise.resolve(
        [...files.values()]
          .filter((f) => f.projectId === projectId)
          .map((f) => ({ id: f.id, name: f.name }))
          .sort(compareIds),
      ),
    getInfo: (id: FileId) => {
      const file = files.get(id);
      return Promise.resolve(file === undefined ? undefined : infoOf(file));
    },
    findByHash: (hash) => Promise.resolve(byCreation().filter((f) => f.hash === hash).map(infoOf)),
    delete: (id: FileId) => {
      files.delete(id);
      return Promise.resolve();
    },
  };
}
