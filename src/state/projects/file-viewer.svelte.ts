import { parseChunkLocation } from '../../core/rag/chunk-location';
import type { Citation, FileId } from '../../core/model';
import type { FileStore } from '../../core/ports';
import { findPageOf, slicePages, type PageSlice } from './file-text';

/** What the viewer shows: the file's extracted text, its pages, and the cited range. */
export interface ViewedFile {
  fileId: FileId;
  name: string;
  mimeType: string;
  text: string;
  /** PDF pages (from the ingest page map); empty for other files. */
  pages: PageSlice[];
  range: { charStart: number; charEnd: number } | null;
  /** The page to show first: the cited passage's, or the first. */
  page: number | null;
  /** Where the passage sits ("p. 3 · Setup · chars 10–90"), as cited. */
  location: string | null;
  /** Why there is no text (no extractable text, unreadable file). */
  notice: string | null;
  sizeBytes: number;
  /** The original's bytes are still only on the sync server (the text is here). */
  isBlobRemote: boolean;
}

/** Getting the original file: fetching it from the sync server, or why that failed. */
export interface OriginalState {
  isFetching: boolean;
  error: string | null;
}

export interface FileViewerDeps {
  files: Pick<FileStore, 'get'>;
  /** Fetches a synced file's bytes from the sync server into this device's copy. */
  fetchBytes: (
    fileId: FileId,
  ) => Promise<{ ok: true } | { ok: false; error: { message: string } }>;
  /** Hands a file to the person (a download). */
  saveFile: (fileName: string, content: Blob) => void;
}

/**
 * The file viewer opened by a citation chip: reads the file from IndexedDB (so it works
 * offline) and finds the cited passage from the chunk location.
 */
export class FileViewerState {
  viewed = $state<ViewedFile | null>(null);
  error = $state<string | null>(null);
  original = $state<OriginalState>({ isFetching: false, error: null });
  private token = 0;

  constructor(private readonly deps: FileViewerDeps) {}

  /** True when this citation points at a stored file (web citations open their URL instead). */
  canOpen(citation: Citation): boolean {
    return citation.fileId !== undefined;
  }

  async openCitation(citation: Citation): Promise<void> {
    if (citation.fileId === undefined) return;
    await this.open(citation.fileId, citation.location ?? null);
  }

  async open(fileId: FileId, location: string | null = null): Promise<void> {
    const token = ++this.token;
    this.error = null;
    this.original = { isFetching: false, error: null };
    const file = await this.deps.files.get(fileId);
    if (token !== this.token) return;
    if (!file) {
      this.viewed = null;
      this.error = 'This file is no longer stored (its project or chat attachment was deleted).';
      return;
    }
    const text = file.text ?? '';
    const position = location === null ? undefined : parseChunkLocation(location);
    const pages = file.pageMap ? slicePages(text.length, file.pageMap) : [];
    const range = position ? { charStart: position.charStart, charEnd: position.charEnd } : null;
    this.viewed = {
      fileId,
      name: file.name,
      mimeType: file.mimeType,
      text,
      pages,
      range,
      page: position?.page ?? (range ? findPageOf(pages, range.charStart) : (pages[0]?.page ?? null)),
      location,
      notice: file.status === 'ready' ? null : (file.error ?? 'This file has no extractable text.'),
      sizeBytes: file.sizeBytes,
      isBlobRemote: file.isBlobRemote === true,
    };
  }

  /**
   * Downloads the viewed file's original. One that arrived through sync without its bytes is
   * fetched from the sync server first (and kept, so the next time needs no network).
   */
  async downloadOriginal(): Promise<void> {
    const viewed = this.viewed;
    if (viewed === null || this.original.isFetching) return;
    const token = this.token;
    let file = await this.deps.files.get(viewed.fileId);
    if (file?.isBlobRemote === true) {
      this.original = { isFetching: true, error: null };
      const fetched = await this.deps.fetchBytes(viewed.fileId);
      if (token !== this.token) return;
      if (!fetched.ok) {
        this.original = { isFetching: false, error: fetched.error.message };
        return;
      }
      file = await this.deps.files.get(viewed.fileId);
      this.viewed = { ...viewed, isBlobRemote: file?.isBlobRemote === true };
    }
    if (token !== this.token) return;
    if (file === undefined || file.isBlobRemote === true) {
      this.original = { isFetching: false, error: 'This file is no longer stored on this device.' };
      return;
    }
    this.original = { isFetching: false, error: null };
    this.deps.saveFile(file.name, file.blob);
  }

  showPage(page: number): void {
    if (this.viewed) this.viewed = { ...this.viewed, page };
  }

  close(): void {
    this.token++;
    this.viewed = null;
    this.error = null;
    this.original = { isFetching: false, error: null };
  }
}
