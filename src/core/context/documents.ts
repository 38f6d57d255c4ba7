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

/** The documents JSON for already-numbered documents (search tool results use this as is). */
export function renderNumberedDocuments(docs: readonly NumberedDocument[]): string {
  if (docs.length === 0) return '{"documents": []}';
  return `{"documents": [\n${docs.map(renderDocumentLine).join(',\n')}\n]}`;
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
