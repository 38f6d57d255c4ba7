import { IngestError } from '../ingest-errors';
import type { Extracted } from './extracted';

/**
 * Reads the pixel size from the file header (PNG, JPEG, GIF, WebP): enough for the image token
 * estimate, without decoding the image (workers in Node have no createImageBitmap).
 */
export function extractImage(bytes: Uint8Array): Extracted {
  const size = readPng(bytes) ?? readGif(bytes) ?? readWebp(bytes) ?? readJpeg(bytes);
  if (size === null)
    throw new IngestError(
      'broken_file',
      'This image could not be read: its header is not PNG, JPEG, GIF or WebP.',
    );
  return { kind: 'image', ...size };
}

type Size = { width: number; height: number } | null;

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const ascii = (bytes: Uint8Array, from: number, length: number) =>
  String.fromCharCode(...bytes.subarray(from, from + length));

function readPng(bytes: Uint8Array): Size {
  if (bytes.length < 24 || ascii(bytes, 1, 3) !== 'PNG' || ascii(bytes, 12, 4) !== 'IHDR')
    return null;
  return { width: view(bytes).getUint32(16), height: view(bytes).getUint32(20) };
}

function readGif(bytes: Uint8Array): Size {
  if (bytes.length < 10 || ascii(bytes, 0, 3) !== 'GIF') return null;
  return { width: view(bytes).getUint16(6, true), height: view(bytes).getUint16(8, true) };
}

function readWebp(bytes: Uint8Array): Size {
  if (bytes.length < 30 || ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 4) !== 'WEBP')
    return null;
  const data = view(bytes);
  const format = ascii(bytes, 12, 4);
  if (format === 'VP8X')
    return {
      width: 1 + (data.getUint32(24, true) & 0xffffff),
      height: 1 + (data.getUint32(27, true) & 0xffffff),
    };
  if (format === 'VP8L') {
    const bits = data.getUint32(21, true);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (format === 'VP8 ')
    return { width: data.getUint16(26, true) & 0x3fff, height: data.getUint16(28, true) & 0x3fff };
  return null;
}

function readJpeg(bytes: Uint8Array): Size {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  const data = view(bytes);
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return null;
    const marker = bytes[offset + 1] ?? 0;
    // SOF0–SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: data.getUint16(offset + 5), width: data.getUint16(offset + 7) };
    }
    offset += 2 + data.getUint16(offset + 2);
  }
  return null;
}
