import mammoth from 'mammoth';
import { IngestError } from '../ingest-errors';
import type { Extracted } from './extracted';
import { renderHtmlBlocks } from './html.extractor';

export async function extractDocx(bytes: Uint8Array): Promise<Extracted> {
  try {
    const arrayBuffer = bytes.buffer.slice(
      bytes.byteOffset,
      bytes.byteOffset + bytes.byteLength,
    ) as ArrayBuffer;
    // The browser build of mammoth reads `arrayBuffer`, its Node build (unit tests) `buffer`.
    const input = { arrayBuffer, buffer: arrayBuffer };
    // Through HTML rather than raw text, so Word headings become the chunks' heading paths.
    const result = await mammoth.convertToHtml(input);
    return { kind: 'text', text: renderHtmlBlocks(result.value) };
  } catch {
    // mammoth's own message names zip internals ("end of central directory"), not the problem.
    throw new IngestError(
      'broken_file',
      'This Word document could not be read: it is damaged, protected, or not a .docx file.',
    );
  }
}
