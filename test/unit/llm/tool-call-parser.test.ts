import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LlmEvent } from '../../../src/core/model';
import { createToolCallExtractor } from '../../../src/llm/tool-call-parser';

/**
 * Outputs as the models' own documentation shows them: Qwen2.5's function-calling guide (two
 * parallel calls), Qwen3's (thinking, then a call), Hermes 2 Pro's (a call after some text).
 */
const QWEN25_PARALLEL = `<tool_call>
{"name": "get_current_temperature", "arguments": {"location": "San Francisco, CA, USA"}}
</tool_call>
<tool_call>
{"name": "get_temperature_date", "arguments": {"location": "San Francisco, CA, USA", "date": "2024-10-01"}}
</tool_call>`;
const QWEN3_THINKING = `<think>
Okay, the user is asking about the temperature in San Francisco now. I should call get_current_temperature.
</think>

<tool_call>
{"name": "get_current_temperature", "arguments": {"location": "San Francisco, CA, USA"}}
</tool_call>`;
const HERMES_TEXT_THEN_CALL = `Let me look that up for you.
<tool_call>
{"arguments": {"symbol": "TSLA"}, "name": "get_stock_fundamentals"}
</tool_call>`;

function run(chunks: readonly string[]): LlmEvent[] {
  let id = 0;
  const extractor = createToolCallExtractor(() => `call-${++id}`);
  return [...chunks.flatMap((chunk) => extractor.accept(chunk)), ...extractor.finish()];
}

const calls = (events: LlmEvent[]) =>
  events.flatMap((event) => (event.type === 'tool-call-end' ? [{ name: event.name, args: JSON.parse(event.argumentsText) as unknown }] : []));
const text = (events: LlmEvent[], type: 'text-delta' | 'reasoning-delta' = 'text-delta') =>
  events.flatMap((event) => (event.type === type ? [event.text] : [])).join('');

/** Splits `value` at the given cut points, as a stream of decoded pieces would. */
function splitAt(value: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (value.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let start = 0;
  for (const point of points) {
    pieces.push(value.slice(start, point));
    start = point;
  }
  pieces.push(value.slice(start));
  return pieces;
}

describe('tool calls written in the answer text', () => {
  it("turns Qwen2.5's two parallel <tool_call> blocks into two calls and no text", () => {
    const events = run([QWEN25_PARALLEL]);
    expect(calls(events)).toEqual([
      { name: 'get_current_temperature', args: { location: 'San Francisco, CA, USA' } },
      { name: 'get_temperature_date', args: { location: 'San Francisco, CA, USA', date: '2024-10-01' } },
    ]);
    expect(text(events).trim()).toBe('');
  });

  it("keeps Qwen3's thinking as reasoning and its call as a call", () => {
    const events = run([QWEN3_THINKING]);
    expect(text(events, 'reasoning-delta')).toContain('I should call get_current_temperature.');
    expect(events.filter((event) => event.type === 'reasoning-end')).toHaveLength(1);
    expect(calls(events)).toEqual([{ name: 'get_current_temperature', args: { location: 'San Francisco, CA, USA' } }]);
  });

  it('shows the text before a call and reads arguments given before the name', () => {
    const events = run([HERMES_TEXT_THEN_CALL]);
    expect(text(events)).toBe('Let me look that up for you.\n');
    expect(calls(events)).toEqual([{ name: 'get_stock_fundamentals', args: { symbol: 'TSLA' } }]);
  });

  it('gives the same events however the text is cut into pieces', () => {
    const whole = run([HERMES_TEXT_THEN_CALL + '\n' + QWEN3_THINKING]);
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
        const pieces = run(splitAt(HERMES_TEXT_THEN_CALL + '\n' + QWEN3_THINKING, cuts));
        expect(calls(pieces)).toEqual(calls(whole));
        expect(text(pieces)).toBe(text(whole));
        expect(text(pieces, 'reasoning-delta')).toBe(text(whole, 'reasoning-delta'));
      }),
    );
  });

  it('shows a block that is not a call as text, and accepts a call cut off before its closing tag', () => {
    expect(text(run(['<tool_call>not json</tool_call>']))).toBe('<tool_call>not json</tool_call>');
    expect(calls(run(['<tool_call>\n{"name": "web_search", "arguments": {"query": "carrel"}}\n']))).toEqual([
      { name: 'web_search', args: { query: 'carrel' } },
    ]);
  });

  it('passes ordinary text through, a lone "<" included', () => {
    expect(text(run(['a < b and <tool', ' is not a tag']))).toBe('a < b and <tool is not a tag');
  });
});
