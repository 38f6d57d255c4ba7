// Small helpers shared by the three wire formats: SSE framing and narrowing of parsed JSON.

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** `data: <payload>` + blank line. Gemini uses CRLF, everyone else LF. */
export function dataFrame(payload: string, eol: '\n' | '\r\n' = '\n'): string {
  return `data: ${payload}${eol}${eol}`;
}

/** Named SSE event, as Anthropic and the OpenAI Responses API send them. */
export function eventFrame(event: string, payload: string): string {
  return `event: ${event}\ndata: ${payload}\n\n`;
}

/**
 * Catalogue bodies are often pretty-printed. A newline inside an SSE `data:` line would end
 * the field early, so in-stream errors are re-serialised onto one line (what a server does).
 */
export function toSingleLine(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body));
  } catch {
    return body.replace(/\r?\n/g, ' ');
  }
}

/** Joins the `text` of content parts (`[{type:'text', text}]` or Gemini `[{text}]`). */
export function textOfParts(parts: unknown): string {
  if (typeof parts === 'string') return parts;
  return asArray(parts)
    .map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n');
}

/** The text of the last entry in `entries` whose role is one of `roles`. */
export function lastTextOfRole(
  entries: unknown,
  roles: readonly (string | undefined)[],
  contentKey: string,
): string {
  const list = asArray(entries);
  for (let i = list.length - 1; i >= 0; i--) {
    const entry = list[i];
    if (!isRecord(entry)) continue;
    const role = typeof entry.role === 'string' ? entry.role : undefined;
    if (roles.includes(role)) return textOfParts(entry[contentKey]);
  }
  return '';
}
