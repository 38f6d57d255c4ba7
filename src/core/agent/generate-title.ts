import { answerText, toPlainTitle, type ChatMessageSimple, type ProviderConfig } from '../model';
import type { LlmClient } from '../ports';

/** Titles are short; a model that rambles is cut here. */
export const MAX_TITLE_CHARS = 60;
const TITLE_MAX_OUTPUT_TOKENS = 32;
/** Only the start of the exchange matters for a title, and it keeps the call cheap. */
const TITLE_SOURCE_CHARS = 2_000;

const TITLE_INSTRUCTIONS =
  'You name conversations. Reply with a title of at most six words that says what the conversation is about. ' +
  'No quotes, no trailing punctuation, no preamble.';

/**
 * Asks the answering model for a short title after the first answer (a cheap call without
 * tools). Returns null when the call fails or says nothing usable: the first words of the
 * question stay as the title.
 */
export async function generateTitle(
  chain: readonly ChatMessageSimple[],
  llm: LlmClient,
  provider: ProviderConfig,
  modelId: string,
  signal: AbortSignal,
): Promise<string | null> {
  const exchange = chain
    .map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${m.role === 'user' ? m.text : answerText(m)}`)
    .join('\n')
    .slice(0, TITLE_SOURCE_CHARS);
  let text = '';
  let hasFailed = false;
  for await (const event of llm.stream(
    {
      provider,
      modelId,
      tools: [],
      maxOutputTokens: TITLE_MAX_OUTPUT_TOKENS,
      messages: [
        { role: 'system', content: TITLE_INSTRUCTIONS },
        { role: 'user', content: `${exchange}\n\nTitle:` },
      ],
    },
    signal,
  )) {
    if (event.type === 'text-delta') text += event.text;
    if (event.type === 'error') hasFailed = true;
  }
  return hasFailed ? null : cleanTitle(text);
}

/** First line, no Markdown, wrapping quotes or "Title:" prefix, no trailing period, bounded length. */
export function cleanTitle(raw: string): string | null {
  const firstLine = raw.trim().split('\n')[0] ?? '';
  const cleaned = toPlainTitle(firstLine)
    .replace(/^title\s*:\s*/i, '')
    .replace(/^["'“”‘’*#\s]+|["'“”‘’*\s]+$/g, '')
    .replace(/[.。!]+$/, '')
    .trim();
  if (cleaned.length === 0) return null;
  return cleaned.length > MAX_TITLE_CHARS ? `${cleaned.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…` : cleaned;
}
