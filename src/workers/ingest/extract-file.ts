import { assertNever } from '../../util/exhaustive';
import { showFileName } from '../../util/file-name';
import { detectFileType, type IngestFileType } from './detect-file-type';
import { extractDocx } from './extractors/docx.extractor';
import type { Extracted } from './extractors/extracted';
import { extractHtml } from './extractors/html.extractor';
import { extractImage } from './extractors/image.extractor';
import { extractPdf } from './extractors/pdf.extractor';
import { extractJson, extractText } from './extractors/text.extractor';
import { IngestError, throwIfCancelled } from './ingest-errors';

export const MAX_FILE_BYTES = 50 * 1024 * 1024;

export interface ExtractFileInput {
  name: string;
  mimeType: string;
  bytes: Uint8Array;
}

/** Picks the extractor by type; throws IngestError for anything it cannot turn into content. */
export async function extractFile(
  input: ExtractFileInput,
  signal: AbortSignal,
  onFraction: (fraction: number) => void = () => undefined,
): Promise<{ type: IngestFileType; extracted: Extracted }> {
  throwIfCancelled(signal);
  if (input.bytes.byteLength > MAX_FILE_BYTES) {
    throw new IngestError(
      'too_large',
      `"${showFileName(input.name)}" is larger than the ${MAX_FILE_BYTES / 1024 / 1024} MB limit.`,
    );
  }
  if (input.bytes.byteLength === 0)
    throw new IngestError('empty_file', describeEmptyFile(input.name));
  const type = detectFileType(input.name, input.mimeType);
  if (type === null) {
    throw new IngestError(
      'unsupported_type',
      `"${showFileName(input.name)}" is not a supported type (${input.mimeType || 'unknown type'}). Supported: text, Markdown, code, HTML, CSV, JSON, PDF, DOCX and images.`,
    );
  }
  const extracted = await extractByType(type, input.bytes, signal, onFraction);
  throwIfCancelled(signal);
  if (extracted.kind === 'text' && extracted.text.trim() === '' && isPlainText(type)) {
    throw new IngestError('empty_file', describeEmptyFile(input.name));
  }
  if (extracted.kind === 'text' && extracted.text.trim() === '') {
    throw new IngestError(
      'no_text',
      `"${showFileName(input.name)}" has no extractable text${type === 'pdf' ? ' (it may be a scan without a text layer)' : ''}.`,
    );
  }
  return { type, extracted };
}

/** What an empty file (no bytes, or only a byte-order mark or blank lines) is called. */
export function describeEmptyFile(name: string): string {
  return `"${showFileName(name)}" is an empty file: there is nothing to add.`;
}

/** Types whose bytes are the text: blank means empty, not "no text could be extracted". */
function isPlainText(type: IngestFileType): boolean {
  return (
    type === 'text' || type === 'markdown' || type === 'code' || type === 'csv' || type === 'json'
  );
}

function extractByType(
  type: IngestFileType,
  bytes: Uint8Array,
  signal: AbortSignal,
  onFraction: (fraction: number) => void,
): Promise<Extracted> | Extracted {
  switch (type) {
    case 'text':
    case 'markdown':
    case 'code':
    case 'csv':
      return extractText(bytes);
    case 'json':
      return extractJson(bytes);
    case 'html':
      return extractHtml(bytes);
    case 'pdf':
      return extractPdf(bytes, signal, (done, total) => onFraction(done / total));
    case 'docx':
      return extractDocx(bytes);
    case 'image':
      return extractImage(bytes);
    default:
      return assertNever(type, 'file type');
  }
}
