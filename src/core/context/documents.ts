/**
 * Documents as the model sees them: JSON with a single citation number first, short
 * fields before the long contents, so the model cites `[1]` without reasoning artifacts.
 */

export const DOCUMENTS_PREFIX =
  'Here are some documents provided for context, they may not all be relevant:';

export interface DocumentInput {
  title: string;
  metadata?: string;
  contents: string;
}

export type NumberedDocument = DocumentInput & { number: number };

function renderDocumentLine(doc: NumberedDocument): string {
  // Key order is the contract (document, title, metadata, contents); spreads keep it.
  return JSON.stringify({
    document: doc.number,
    title: doc.title,
    ...(doc.metadata !== undefined && doc.metadata.length > 0 ? { metadata: doc.metadata } : {}),
    contents: doc.contents,
  });
}

const DOCUMENTS_OPEN = '{"documents": [\n';
const DOCUMENTS_CLOSE = '\n]}';

/** The documents JSON around document lines, one document per line. */
export function joinDocumentLines(lines: readonly string[]): string {
  if (lines.length === 0) return '{"documents": []}';
  return `${DOCUMENTS_OPEN}${lines.join(',\n')}${DOCUMENTS_CLOSE}`;
}

/** The documents JSON for already-numbered documents (search tool results use this as is). */
export function renderNumberedDocuments(docs: readonly NumberedDocument[]): string {
  return joinDocumentLines(docs.map(renderDocumentLine));
}

/** One document of a rendered documents JSON: its citation number and its line. */
export interface DocumentLine {
  number: number;
  line: string;
}

function readDocumentNumber(line: string): number | null {
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null || !('document' in parsed)) return null;
    return typeof parsed.document === 'number' ? parsed.document : null;
  } catch {
    return null;
  }
}

/**
 * The documents of a tool result rendered by `renderNumberedDocuments` (plus any notes after
 * it), so a result can be sent with fewer documents; null when the text is not in that form.
 * JSON strings escape line breaks, so each document is exactly one line.
 */
export function splitDocumentLines(
  content: string,
): { documents: DocumentLine[]; suffix: string } | null {
  if (!content.startsWith(DOCUMENTS_OPEN)) return null;
  const end = content.indexOf(DOCUMENTS_CLOSE, DOCUMENTS_OPEN.length);
  if (end < 0) return null;
  const lines = content.slice(DOCUMENTS_OPEN.length, end).split('\n');
  const documents: DocumentLine[] = [];
  for (let index = 0; index < lines.length; index++) {
    const raw = lines[index] ?? '';
    const line = index < lines.length - 1 ? raw.replace(/,$/, '') : raw;
    const number = readDocumentNumber(line);
    if (number === null) return null;
    documents.push({ number, line });
  }
  return { documents, suffix: content.slice(end + DOCUMENTS_CLOSE.length) };
}

/** The documents JSON, numbered from `firstNumber` so citations never collide within a turn. */
export function renderDocuments(docs: readonly DocumentInput[], firstNumber: number): string {
  return renderNumberedDocuments(
    docs.map((doc, index) => ({ ...doc, number: firstNumber + index })),
  );
}

/** The one-line prefix plus the JSON, for documents placed in a user message (project files). */
export function renderDocumentsMessage(
  docs: readonly DocumentInput[],
  firstNumber: number,
): string {
  return `${DOCUMENTS_PREFIX}\n${renderDocuments(docs, firstNumber)}`;
}
