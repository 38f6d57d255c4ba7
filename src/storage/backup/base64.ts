/** Base64 without Node's Buffer: backups are made in the browser, window or worker. */

/** Bytes per String.fromCharCode call: large enough to be fast, small enough for the stack. */
const ENCODE_CHUNK_BYTES = 0x8000;

export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let start = 0; start < bytes.length; start += ENCODE_CHUNK_BYTES) {
    binary += String.fromCharCode(...bytes.subarray(start, start + ENCODE_CHUNK_BYTES));
  }
  return btoa(binary);
}

export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

export const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
