// Test-side SSE parsing, so the tests read the mock's output the way a client would.

export interface SseEvent {
  event?: string;
  data: string;
}

/** Splits an SSE body into events (LF or CRLF framing); comment lines are dropped. */
export function parseSse(text: string): SseEvent[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith('event:')) event = line.slice('event:'.length).trim();
        if (line.startsWith('data:')) data.push(line.slice('data:'.length).replace(/^ /, ''));
      }
      return event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') };
    });
}

/** JSON payloads of the events, skipping OpenAI's `[DONE]` sentinel, read as shape `T`. */
export function sseJson<T>(text: string): T[] {
  return parseSse(text)
    .filter((e) => e.data !== '[DONE]')
    .map((e) => JSON.parse(e.data) as T);
}
