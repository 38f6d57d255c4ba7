import type { FixtureWire } from '../../unit/llm/replay';

/** The hand-written corpus of broken provider responses. */
export interface CorpusCase {
  name: string;
  wire: FixtureWire;
  status: number;
  contentType: string;
  body: Uint8Array;
  /** Text a correct client must still show (what arrived before the fault). */
  keptText: string;
  /** Well-formed despite its oddity: must finish normally rather than with an error. */
  isWellFormed: boolean;
}

const encode = (text: string) => new TextEncoder().encode(text);
const openAiDelta = (text: string) => `data: {"choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}},"finish_reason":null}]}\n\n`;
const OPENAI_DONE = 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
const TEN_MB = 10 * 1024 * 1024;

const anthropicHead =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n' +
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n';
const anthropicDelta = (text: string) =>
  `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}\n\n`;

function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function buildCorpus(): CorpusCase[] {
  const sse = 'text/event-stream';
  return [
    {
      name: 'a JSON frame cut in the middle',
      wire: 'openai-chat',
      status: 200,
      contentType: sse,
      body: encode(`${openAiDelta('Partial ')}${openAiDelta('answer')}data: {"choices":[{"index":0,"delta":{"content":"Hel`),
      keptText: 'Partial answer',
      isWellFormed: false,
    },
    {
      name: 'a stream missing its final event',
      wire: 'anthropic',
      status: 200,
      contentType: sse,
      body: encode(`${anthropicHead}${anthropicDelta('Cut ')}${anthropicDelta('off')}`),
      keptText: 'Cut off',
      isWellFormed: false,
    },
    {
      name: 'an HTML error page sent with status 200',
      wire: 'openai-compatible',
      status: 200,
      contentType: 'text/html',
      body: encode('<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>\n'),
      keptText: '',
      isWellFormed: false,
    },
    {
      name: 'an error in the middle of an OpenAI stream',
      wire: 'openai-chat',
      status: 200,
      contentType: sse,
      body: encode(`${openAiDelta('Before the error')}data: {"error":{"message":"The server had an error","type":"server_error","param":null,"code":null}}\n\ndata: [DONE]\n\n`),
      keptText: 'Before the error',
      isWellFormed: false,
    },
    {
      name: 'an error event in the middle of an Anthropic stream',
      wire: 'anthropic',
      status: 200,
      contentType: sse,
      body: encode(`${anthropicHead}${anthropicDelta('Half')}event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`),
      keptText: 'Half',
      isWellFormed: false,
    },
    {
      name: 'an error object in the middle of a Gemini stream',
      wire: 'google',
      status: 200,
      contentType: sse,
      body: encode(
        'data: {"candidates":[{"content":{"parts":[{"text":"Gem"}],"role":"model"},"index":0}]}\r\n\r\n' +
          'data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\r\n\r\n',
      ),
      keptText: 'Gem',
      isWellFormed: false,
    },
    {
      name: 'keep-alive comments and nothing else',
      wire: 'openai-compatible',
      status: 200,
      contentType: sse,
      body: encode(': OPENROUTER PROCESSING\n\n'.repeat(50)),
      keptText: '',
      isWellFormed: false,
    },
    {
      name: 'a 10 MB line of garbage',
      wire: 'openai-chat',
      status: 200,
      contentType: sse,
      body: encode(`${openAiDelta('Before the flood')}data: ${'x'.repeat(TEN_MB)}\n\n`),
      keptText: 'Before the flood',
      isWellFormed: false,
    },
    {
      name: 'a 10 MB token inside a valid frame',
      wire: 'openai-chat',
      status: 200,
      contentType: sse,
      body: encode(`${openAiDelta('y'.repeat(TEN_MB))}${OPENAI_DONE}`),
      keptText: 'y'.repeat(TEN_MB),
      isWellFormed: true,
    },
    {
      name: 'invalid UTF-8 inside a token',
      wire: 'openai-chat',
      status: 200,
      contentType: sse,
      body: concatBytes(
        encode(openAiDelta('ok ')),
        encode('data: {"choices":[{"index":0,"delta":{"content":"bad '),
        new Uint8Array([0xff, 0xfe, 0xc3]),
        encode(' bytes"},"finish_reason":null}]}\n\n'),
        encode(OPENAI_DONE),
      ),
      keptText: 'ok bad \uFFFD\uFFFD\uFFFD bytes',
      isWellFormed: true,
    },
  ];
}
