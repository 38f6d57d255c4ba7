import { err, ok, type Result } from '../../util/result';

/** RFC 9110 token characters: what a header name may contain. */
const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Reads headers typed one per line as `Name: value` (blank lines ignored). The error names the
 * first line that is not a header, so the form can say which one to fix.
 */
export function parseHeaderLines(text: string): Result<Record<string, string>, string> {
  const headers: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (const [index, rawLine] of lines.entries()) {
    const line = rawLine.trim();
    if (line === '') continue;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!HEADER_NAME_PATTERN.test(name)) {
      return err(`Line ${index + 1} is not a header: write it as "Name: value".`);
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return ok(headers);
}

/** The inverse of parseHeaderLines, for editing stored headers. */
export function formatHeaderLines(headers: Readonly<Record<string, string>>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
}
