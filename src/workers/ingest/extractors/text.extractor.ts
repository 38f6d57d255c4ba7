import { IngestError } from '../ingest-errors';
import type { Extracted } from './extracted';

/** How much of a file the encoding and binary checks look at. */
const SAMPLE_BYTES = 64 * 1024;
/**
 * A file is binary when more than this share of its first characters are control characters
 * or bytes that are not valid text. Text can hold a stray NUL or escape sequence; an image, an
 * archive or a program is full of them.
 */
const MAX_CONTROL_SHARE = 0.1;
/** UTF-16 without a byte-order mark: ASCII-range text leaves every other byte zero. */
const MIN_UTF16_ZERO_SHARE = 0.3;

type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

function detectBom(bytes: Uint8Array): { encoding: TextEncoding; length: number } | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return { encoding: 'utf-8', length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return null;
}

/** UTF-16 told by its zero bytes: mostly on one side of each pair, almost never on the other. */
function guessUtf16(sample: Uint8Array): TextEncoding | null {
  const pairs = Math.floor(sample.length / 2);
  if (pairs < 2) return null;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i + 1 < sample.length; i += 2) {
    if (sample[i] === 0) evenZeros++;
    if (sample[i + 1] === 0) oddZeros++;
  }
  const few = pairs * 0.02;
  if (oddZeros >= pairs * MIN_UTF16_ZERO_SHARE && evenZeros <= few) return 'utf-16le';
  if (evenZeros >= pairs * MIN_UTF16_ZERO_SHARE && oddZeros <= few) return 'utf-16be';
  return null;
}

/**
 * C0 controls other than tab, line feed, vertical tab, form feed, carriage return and escape;
 * DEL; and U+FFFD, which the decoder puts where the bytes are not valid in the encoding.
 */
function isControl(code: number): boolean {
  if (code < 0x20) return code < 0x09 || (code > 0x0d && code !== 0x1b);
  return code === 0x7f || code === 0xfffd;
}

function controlShare(text: string): number {
  if (text.length === 0) return 0;
  let controls = 0;
  for (let i = 0; i < text.length; i++) if (isControl(text.charCodeAt(i))) controls++;
  return controls / text.length;
}

function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The file's text, or null when it is binary. A byte-order mark decides the encoding (UTF-8,
 * UTF-16 LE or BE) and is dropped; without one, UTF-16 is recognised by its zero bytes, and
 * bytes that are not UTF-8 are read as Windows-1252 (the usual older Western encoding). Whether
 * the file is binary is decided by its content: the share of control characters, not the
 * presence of one NUL, which is dropped from text. Windows line ends become plain ones.
 */
export function decodeTextContent(bytes: Uint8Array): string | null {
  const bom = detectBom(bytes);
  const body = bom ? bytes.subarray(bom.length) : bytes;
  const sample = body.subarray(0, SAMPLE_BYTES);
  let encoding: TextEncoding = bom?.encoding ?? guessUtf16(sample) ?? 'utf-8';
  if (encoding === 'utf-8' && bom === null && !isValidUtf8(body)) {
    const asUtf8 = controlShare(new TextDecoder('utf-8').decode(sample));
    const asLatin = controlShare(new TextDecoder('windows-1252').decode(sample));
    if (asLatin < asUtf8) encoding = 'windows-1252';
  }
  const decoder = new TextDecoder(encoding, { fatal: false, ignoreBOM: true });
  if (controlShare(decoder.decode(sample)) > MAX_CONTROL_SHARE) return null;
  return decoder.decode(body).replaceAll('\u0000', '').replace(/\r\n?/g, '\n');
}

/** The file's text for the extractors that parse it further (HTML, JSON). */
export function decodeText(bytes: Uint8Array): string {
  const text = decodeTextContent(bytes);
  if (text === null) throw new IngestError('unsupported_type', 'This file looks binary, not text.');
  return text;
}

export function extractText(bytes: Uint8Array): Extracted {
  return { kind: 'text', text: decodeText(bytes) };
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
