import type { FixtureWire } from '../../unit/llm/replay';

/**
 * Builds provider stream bodies from a provider-neutral answer, and serialises them with the
 * variations real servers and proxies produce: CR, LF or CRLF line ends, comment lines, unknown
 * fields, `data:` split over several lines, and bytes cut at arbitrary positions.
 */

export interface NeutralAnswer {
  deltas: string[];
  /** False: the provider's final event never comes (a cut connection). */
  isFinished: boolean;
}

export type LineEnd = '\n' | '\r' | '\r\n';

export interface Framing {
  /** One line end per frame, cycled. */
  lineEnds: LineEnd[];
  /** Insert a `:` comment line before frame i when commentEvery divides i (0: never). */
  commentEvery: number;
  /** Pretty-print JSON so each frame's data spans several `data:` lines. */
  isMultiLineData: boolean;
  /** Add this unknown field to every payload object. */
  unknownField: string | null;
}

export const WIRES: readonly FixtureWire[] = ['openai-chat', 'openai-compatible', 'anthropic', 'google', 'openai-responses'];

interface Frame {
  event?: string;
  data: unknown;
}

function openAiChatFrames(answer: NeutralAnswer): Frame[] {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null, extra: Record<string, unknown> = {}): Frame => ({
    data: {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'test-model',
      choices: [{ index: 0, delta, finish_reason: finishReason }],
      ...extra,
    },
  });
  const frames = [chunk({ role: 'assistant', content: '' }, null), ...answer.deltas.map((text) => chunk({ content: text }, null))];
  if (answer.isFinished) {
    frames.push(chunk({}, 'stop', { usage: { prompt_tokens: 5, completion_tokens: answer.deltas.length, total_tokens: 5 + answer.deltas.length } }));
    frames.push({ data: '[DONE]' });
  }
  return frames;
}

function anthropicFrames(answer: NeutralAnswer): Frame[] {
  const event = (data: { type: string } & Record<string, unknown>): Frame => ({ event: data.type, data });
  const frames = [
    event({
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'test-model',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 5, output_tokens: 1 },
      },
    }),
    event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ...answer.deltas.map((text) => event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
  ];
  if (answer.isFinished) {
    frames.push(event({ type: 'content_block_stop', index: 0 }));
    frames.push(event({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: answer.deltas.length } }));
    frames.push(event({ type: 'message_stop' }));
  }
  return frames;
}

function googleFrames(answer: NeutralAnswer): Frame[] {
  const frames: Frame[] = answer.deltas.map((text) => ({
    data: { candidates: [{ content: { parts: [{ text }], role: 'model' }, index: 0 }] },
  }));
  if (answer.isFinished) {
    frames.push({
      data: {
        candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 5, candidatesTokenCount: answer.deltas.length, totalTokenCount: 5 + answer.deltas.length },
      },
    });
  }
  return frames;
}

function responsesFrames(answer: NeutralAnswer): Frame[] {
  let sequence = 0;
  const event = (data: { type: string } & Record<string, unknown>): Frame => ({
    event: data.type,
    data: { ...data, sequence_number: sequence++ },
  });
  const response = (status: string, output: unknown[]) => ({
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    status,
    error: null,
    incomplete_details: null,
    model: 'test-model',
    output,
    usage: status === 'completed' ? { input_tokens: 5, input_tokens_details: { cached_tokens: 0 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 8 } : null,
  });
  const text = answer.deltas.join('');
  const message = (content: unknown[], status: string) => ({ id: 'msg_1', type: 'message', status, role: 'assistant', content });
  const frames = [
    event({ type: 'response.created', response: response('in_progress', []) }),
    event({ type: 'response.output_item.added', output_index: 0, item: message([], 'in_progress') }),
    event({ type: 'response.content_part.added', item_id: 'msg_1', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
    ...answer.deltas.map((delta) => event({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta, logprobs: [] })),
  ];
  if (answer.isFinished) {
    const done = message([{ type: 'output_text', text, annotations: [] }], 'completed');
    frames.push(event({ type: 'response.output_text.done', item_id: 'msg_1', output_index: 0, content_index: 0, text, logprobs: [] }));
    frames.push(event({ type: 'response.output_item.done', output_index: 0, item: done }));
    frames.push(event({ type: 'response.completed', response: response('completed', [done]) }));
  }
  return frames;
}

export function buildFrames(wire: FixtureWire, answer: NeutralAnswer): Frame[] {
  switch (wire) {
    case 'openai-chat':
    case 'openai-compatible':
      return openAiChatFrames(answer);
    case 'anthropic':
      return anthropicFrames(answer);
    case 'google':
      return googleFrames(answer);
    case 'openai-responses':
      return responsesFrames(answer);
  }
}

function addUnknownField(data: unknown, field: string): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  return { ...(data as Record<string, unknown>), [field]: { note: 'a field this client does not know', n: 1 } };
}

/** One SSE body: frames with the given line ends, comments, multi-line data and unknown fields. */
export function serializeFrames(frames: Frame[], framing: Framing): string {
  let body = '';
  frames.forEach((frame, index) => {
    const end = framing.lineEnds[index % framing.lineEnds.length] ?? '\n';
    if (framing.commentEvery > 0 && index % framing.commentEvery === 0) body += `: keep-alive${end}`;
    if (frame.event !== undefined) body += `event: ${frame.event}${end}`;
    const data = framing.unknownField === null ? frame.data : addUnknownField(frame.data, framing.unknownField);
    const text = typeof data === 'string' ? data : JSON.stringify(data, null, framing.isMultiLineData ? 1 : undefined);
    // JSON.stringify only breaks lines between tokens, so the data lines rejoin to valid JSON.
    for (const line of text.split('\n')) body += `data: ${line}${end}`;
    body += end;
  });
  return body;
}

/** Cuts bytes at the given positions (any order, duplicates and out-of-range ignored). */
export function cutBytes(bytes: Uint8Array, positions: number[]): Uint8Array[] {
  const cuts = [...new Set(positions)].filter((p) => p > 0 && p < bytes.length).sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const cut of cuts) {
    pieces.push(bytes.slice(start, cut));
    start = cut;
  }
  pieces.push(bytes.slice(start));
  return pieces;
}
