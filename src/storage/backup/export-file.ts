/**
 * Where an export's bytes go while it is written. In a browser with the origin private file
 * system (OPFS: Chromium, Firefox, Safari), straight to a file on disk, so memory holds one
 * part of the file whatever the database's size, and the File handed back is read from disk
 * when it is downloaded. Elsewhere (Node, older browsers), parts are kept as Blobs in memory.
 *
 * The file on disk stays until the next export starts (it is what the download reads) or the
 * export fails or is cancelled.
 */

/** Text of the file in order: parts are appended as they are folded. */
export interface ExportFileSink {
  append(part: Blob): Promise<void>;
  /** The whole file, typed. */
  finish(type: string): Promise<Blob>;
  /** Drops what was written (a cancel or a failure). */
  discard(): Promise<void>;
}

/** Folder in the origin private file system that holds the latest export. */
export const EXPORT_DIRECTORY = 'carrel-exports';

function createMemorySink(): ExportFileSink {
  const parts: Blob[] = [];
  return {
    append(part) {
      parts.push(part);
      return Promise.resolve();
    },
    finish: (type) => Promise.resolve(new Blob(parts, { type })),
    discard() {
      parts.length = 0;
      return Promise.resolve();
    },
  };
}

type StorageWithDirectory = { getDirectory?: () => Promise<FileSystemDirectoryHandle> };

/** The origin private file system's root, where it exists and can be written with a stream. */
function findPrivateFileSystem(): (() => Promise<FileSystemDirectoryHandle>) | undefined {
  const storage = (globalThis as { navigator?: { storage?: StorageWithDirectory } }).navigator
    ?.storage;
  const handle = (globalThis as { FileSystemFileHandle?: { prototype: object } })
    .FileSystemFileHandle;
  if (typeof storage?.getDirectory !== 'function' || handle === undefined) return undefined;
  if (!('createWritable' in handle.prototype)) return undefined;
  return () => (storage.getDirectory as () => Promise<FileSystemDirectoryHandle>)();
}

async function createDiskSink(
  root: FileSystemDirectoryHandle,
  name: string,
): Promise<ExportFileSink> {
  const folder = await root.getDirectoryHandle(EXPORT_DIRECTORY, { create: true });
  // Earlier exports were downloaded (or abandoned) by now: only the newest file is kept.
  const earlier: string[] = [];
  for await (const key of (folder as unknown as { keys(): AsyncIterable<string> }).keys())
    earlier.push(key);
  await Promise.all(earlier.map((key) => folder.removeEntry(key).catch(() => undefined)));
  const handle = await folder.getFileHandle(name, { create: true });
  const writable = await handle.createWritable({ keepExistingData: false });
  let isClosed = false;
  return {
    append: (part) => writable.write(part),
    async finish(type) {
      await writable.close();
      isClosed = true;
      const file = await handle.getFile();
      // A File from disk keeps its bytes there; slicing it re-types it without reading them.
      return file.slice(0, file.size, type);
    },
    async discard() {
      if (!isClosed) await writable.abort().catch(() => undefined);
      isClosed = true;
      await folder.removeEntry(name).catch(() => undefined);
    },
  };
}

/**
 * A sink for one export: on disk when the browser offers a private file system that can be
 * written (and opening it works), in memory otherwise.
 */
export async function openExportFile(name: string): Promise<ExportFileSink> {
  const getRoot = findPrivateFileSystem();
  if (getRoot === undefined) return createMemorySink();
  try {
    return await createDiskSink(await getRoot(), name);
  } catch {
    // A private file system that refuses (private browsing in some browsers, a full disk
    // quota): the export still works, held in memory as before.
    return createMemorySink();
  }
}
