import type { LlmEvent } from '../core/model';

/**
 * Small open models (Qwen2.5, Qwen3, SmolLM3, Hermes-style templates) call tools by writing
 * `<tool_call>{"name": …, "arguments": {…}}</tool_call>` in their answer, and Qwen3 thinks inside
 * `<think>…</think>`; transformers.js hands back plain text. This turns that text, as it streams,
 * into the same events a provider's API sends: text, reasoning and tool calls. A tag split
 * across two deltas is held back until it is complete.
 */
const TOOL_OPEN = '<tool_call>';
const TOOL_CLOSE = '</tool_call>';
const THINK_OPEN = '<think>';
const THINK_CLOSE = '</think>';

type Mode = 'text' | 'tool' | 'think';

export interface ToolCallExtractor {
  accept(delta: string): LlmEvent[];
  /** Flushes what is held back; an unclosed tool call whose JSON is complete still counts. */
  finish(): LlmEvent[];
  /** How many tool calls were found so far. */
  readonly toolCallCount: number;
}

/** The longest suffix of `text` that is a proper prefix of `tag` (a tag that may be arriving). */
function pendingTagLength(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length -= 1) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}

/** `{"name": "x", "arguments": {...}}` (arguments may also be a JSON string), or null. */
export function parseToolCallJson(body: string): { name: string; argumentsText: string } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.trim());
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const record = parsed as Record<string, unknown>;
  const name = record.name;
  if (typeof name !== 'string' || name === '') return null;
  const args = record.arguments ?? record.parameters ?? {};
  return { name, argumentsText: typeof args === 'string' ? args : JSON.stringify(args) };
}

export function createToolCallExtractor(newId: () => string): ToolCallExtractor {
  let mode: Mode = 'text';
  let buffer = '';
  let toolBody = '';
  let count = 0;

  const closeTool = (body: string): LlmEvent[] => {
    const call = parseToolCallJson(body);
    // Not a call after all: the person sees what the model wrote.
    if (call === null) return [{ type: 'text-delta', text: `${TOOL_OPEN}${body}${TOOL_CLOSE}` }];
    count += 1;
    const id = newId();
    return [
      { type: 'tool-call-start', id, name: call.name },
      { type: 'tool-call-delta', id, argumentsDelta: call.argumentsText },
      { type: 'tool-call-end', id, name: call.name, argumentsText: call.argumentsText },
    ];
  };

  const emit = (text: string): LlmEvent[] => {
    if (text === '') return [];
    if (mode === 'text') return [{ type: 'text-delta', text }];
    if (mode === 'think') return [{ type: 'reasoning-delta', text }];
    toolBody += text;
    return [];
  };

  function accept(delta: string): LlmEvent[] {
    buffer += delta;
    const events: LlmEvent[] = [];
    for (;;) {
      const closing = mode === 'tool' ? TOOL_CLOSE : mode === 'think' ? THINK_CLOSE : null;
      const candidates = closing === null ? [TOOL_OPEN, THINK_OPEN] : [closing];
      const hits = candidates
        .map((tag) => ({ tag, at: buffer.indexOf(tag) }))
        .filter((hit) => hit.at >= 0)
        .sort((a, b) => a.at - b.at);
      const hit = hits[0];
      if (hit === undefined) {
        const held = Math.max(...candidates.map((tag) => pendingTagLength(buffer, tag)));
        events.push(...emit(buffer.slice(0, buffer.length - held)));
        buffer = buffer.slice(buffer.length - held);
        return events;
      }
      events.push(...emit(buffer.slice(0, hit.at)));
      buffer = buffer.slice(hit.at + hit.tag.length);
      if (hit.tag === TOOL_OPEN) {
        mode = 'tool';
        toolBody = '';
      } else if (hit.tag === THINK_OPEN) {
        mode = 'think';
      } else if (hit.tag === TOOL_CLOSE) {
        events.push(...closeTool(toolBody));
        toolBody = '';
        mode = 'text';
      } else {
        events.push({ type: 'reasoning-end' });
        mode = 'text';
      }
    }
  }

  return {
    accept,
    finish() {
      const events = emit(buffer);
      buffer = '';
      if (mode === 'tool') {
        const call = parseToolCallJson(toolBody);
        events.push(...(call === null ? [{ type: 'text-delta' as const, text: `${TOOL_OPEN}${toolBody}` }] : closeTool(toolBody)));
      } else if (mode === 'think') {
        events.push({ type: 'reasoning-end' });
      }
      mode = 'text';
      toolBody = '';
      return events;
    },
    get toolCallCount() {
      return count;
    },
  };
}
