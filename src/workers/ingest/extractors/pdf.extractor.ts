// The worker module has no types of its own; the test tsconfig does not include src/, so the
// declaration is referenced from here rather than found by a glob.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- see above
/// <reference path="./pdf-worker-module.d.ts" />
import type * as PdfJsModule from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PageSpan } from '../../../core/ports';
import { IngestError, throwIfCancelled } from '../ingest-errors';
import type { Extracted } from './extracted';

/** Blank line between pages, so a paragraph never runs across a page break. */
const PAGE_SEPARATOR = '\n\n';

type PdfJs = typeof PdfJsModule;
let pdfJs: Promise<PdfJs> | null = null;

/**
 * pdf.js 6 calls `Promise.withResolvers` (Chrome 119, Firefox 121, Safari 17.4, Node 22) and its
 * legacy build no longer supplies it. Where it is missing (Node 20, an older browser) it is
 * defined here, exactly as the standard describes it, before pdf.js loads.
 */
function provideWithResolvers(): void {
  const promise = Promise as { withResolvers?: unknown };
  if (typeof promise.withResolvers === 'function') return;
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T>(this: PromiseConstructor) {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const created = new this<T>((onResolve, onReject) => {
        resolve = onResolve;
        reject = onReject;
      });
      return { promise: created, resolve, reject };
    },
  });
}

/**
 * pdf.js runs its parser in the current thread: the ingest code already runs in a worker, and
 * registering the worker module as `globalThis.pdfjsWorker` works the same in Node tests, in a
 * Web Worker and in the built app, with no worker URL to serve. The legacy build keeps older
 * browsers working.
 */
function loadPdfJs(): Promise<PdfJs> {
  pdfJs ??= (async () => {
    provideWithResolvers();
    const [library, worker] = await Promise.all([
      import('pdfjs-dist/legacy/build/pdf.mjs'),
      import('pdfjs-dist/legacy/build/pdf.worker.mjs'),
    ]);
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return library;
  })();
  return pdfJs;
}

interface TextItemLike {
  str: string;
  hasEOL?: boolean;
}

const isTextItem = (item: unknown): item is TextItemLike =>
  typeof item === 'object' && item !== null && typeof (item as { str?: unknown }).str === 'string';

/** `onPage(done, total)` after each page, for the progress bar of long PDFs. */
export async function extractPdf(
  bytes: Uint8Array,
  signal: AbortSignal,
  onPage: (done: number, total: number) => void = () => undefined,
): Promise<Extracted> {
  const pdfjs = await loadPdfJs();
  // pdf.js takes ownership of the buffer it is given; keep the caller's bytes intact.
  const task = pdfjs.getDocument({
    // pdf.js 6 no longer compiles PDF functions with eval, so there is no eval option to refuse.
    data: bytes.slice(),
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  const onAbort = () => void task.destroy();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const document = await task.promise.catch((error: unknown) => {
      throw toIngestError(error);
    });
    const pages: string[] = [];
    for (let number = 1; number <= document.numPages; number++) {
      throwIfCancelled(signal);
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      pages.push(joinItems(content.items));
      page.cleanup();
      onPage(number, document.numPages);
    }
    const pageMap: PageSpan[] = [];
    let text = '';
    pages.forEach((pageText, index) => {
      if (index > 0) text += PAGE_SEPARATOR;
      pageMap.push({ page: index + 1, offset: text.length });
      text += pageText;
    });
    return { kind: 'text', text, pageMap };
  } catch (error) {
    throwIfCancelled(signal);
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
    await task.destroy();
  }
}

function joinItems(items: readonly unknown[]): string {
  let text = '';
  for (const item of items) {
    if (!isTextItem(item)) continue;
    text += item.str;
    if (item.hasEOL === true) text += '\n';
    else if (item.str !== '' && !text.endsWith(' ')) text += ' ';
  }
  return text.replace(/[ \t]+\n/g, '\n').trim();
}

function toIngestError(error: unknown): IngestError {
  const name = error instanceof Error ? error.name : '';
  if (name === 'PasswordException')
    return new IngestError(
      'encrypted_pdf',
      'This PDF is protected by a password; remove the password and add it again.',
    );
  // pdf.js's own message ("Invalid PDF structure", "xref") speaks of its parser, not the file.
  return new IngestError('broken_file', 'This PDF could not be read: it is damaged or not a PDF.');
}
