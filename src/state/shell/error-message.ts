/**
 * Turns anything thrown or returned as an error into one sentence a person can act on. Aborts
 * are not errors (the person pressed Stop or left): they yield null and are never shown.
 */

export interface ErrorLike {
  code?: string;
  message: string;
}

/** Codes whose stored message is too technical or too vague; the sentence says what to do. */
const MESSAGES_BY_CODE: Readonly<Record<string, string>> = {
  quota_exceeded: 'The browser storage for Carrel is full. Export or delete old chats, then try again.',
  storage_unavailable: 'Browser storage is unavailable (private mode or blocked site data). Carrel needs it to keep your chats.',
  worker_setup: 'The chat engine could not start. Reload the page; if it keeps failing, check that site data is allowed.',
  network: 'The network request failed. Check your connection and try again.',
  offline: 'You are offline. Reconnect to send messages to a cloud model.',
};

/** True for a cancelled fetch, a stopped run or anything else carrying the AbortError name. */
export function isAbortError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return name === 'AbortError' || code === 'aborted' || code === 'user_cancelled';
}

/** One clear sentence for the error, prefixed with what was being done; null for aborts. */
export function describeError(error: unknown, doing?: string): string | null {
  if (isAbortError(error)) return null;
  const detail = errorDetail(error);
  return doing ? `${doing}: ${detail}` : detail;
}

function errorDetail(error: unknown): string {
  if (typeof error === 'string') return sentence(error);
  if (typeof error === 'object' && error !== null) {
    const { code, message } = error as Partial<ErrorLike>;
    if (typeof code === 'string' && MESSAGES_BY_CODE[code]) return MESSAGES_BY_CODE[code];
    if (typeof message === 'string' && message.trim() !== '') return sentence(message);
  }
  return 'Something went wrong. Try again; if it keeps happening, reload the page.';
}

/** Error messages arrive in every style; the toast shows a capitalised sentence with a stop. */
function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return 'Something went wrong.';
  const capitalised = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}
