import { IngestError } from '../ingest-errors';
import type { Extracted } from './extracted';

/** UTF-8 text with a byte-order mark dropped and Windows line ends made plain. */
export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false, ignoreBOM: false })
    .decode(bytes)
    .replace(/\r\n?/g, '\n');
}

export function extractText(bytes: Uint8Array): Extracted {
  const text = decodeText(bytes);
  if (text.includes('\u0000'))
    throw new IngestError('unsupported_type', 'This file looks binary, not text.');
  return { kind: 'text', text };
}

/** JSON is pretty-printed so chunks fall on lines; JSON that does not parse stays as written. */
export function extractJson(bytes: Uint8Array): Extracted {
  const text = decodeText(bytes);
  try {
    return { kind: 'text', text: JSON.stringify(JSON.parse(text), null, 2) };
  } catch {
    return { kind: 'text', text };
  }
}
