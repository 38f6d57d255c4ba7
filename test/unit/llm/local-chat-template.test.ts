import { join } from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import type { LlmMessage, ToolDefinition } from '../../../src/core/model';
import { toChatTemplateMessages, toChatTemplateTools } from '../../../src/llm/local-chat-messages';

/**
 * The prompt the built-in model reads, rendered by transformers.js from Qwen2.5-Instruct's chat
 * template (the tiny test model carries it verbatim). The expected text is what Qwen's
 * function-calling guide shows the Python reference rendering for the same conversation.
 */
const TEMPERATURE_TOOL: ToolDefinition = {
  name: 'get_current_temperature',
  description: 'Get current temperature at a location.',
  inputSchema: {
    type: 'object',
    properties: {
      location: { type: 'string', description: 'The location to get the temperature for, in the format "City, State, Country".' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'], description: 'The unit to return the temperature in. Defaults to "celsius".' },
    },
    required: ['location'],
  },
};

const CONVERSATION: LlmMessage[] = [
  { role: 'system', content: 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.\n\nCurrent Date: 2024-09-30' },
  { role: 'user', content: "What's the temperature in San Francisco now?" },
  {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'get_current_temperature', input: { location: 'San Francisco, CA, USA' } }],
  },
  {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: 'get_current_temperature', output: '{"temperature": 26.1, "location": "San Francisco, CA, USA", "unit": "celsius"}' }],
  },
];

const EXPECTED = `<|im_start|>system
You are Qwen, created by Alibaba Cloud. You are a helpful assistant.

Current Date: 2024-09-30

# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{"type": "function", "function": {"name": "get_current_temperature", "description": "Get current temperature at a location.", "parameters": {"type": "object", "properties": {"location": {"type": "string", "description": "The location to get the temperature for, in the format \\"City, State, Country\\"."}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "The unit to return the temperature in. Defaults to \\"celsius\\"."}}, "required": ["location"]}}}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call><|im_end|>
<|im_start|>user
What's the temperature in San Francisco now?<|im_end|>
<|im_start|>assistant
<tool_call>
{"name": "get_current_temperature", "arguments": {"location": "San Francisco, CA, USA"}}
</tool_call><|im_end|>
<|im_start|>user
<tool_response>
{"temperature": 26.1, "location": "San Francisco, CA, USA", "unit": "celsius"}
</tool_response><|im_end|>
<|im_start|>assistant
`;

describe("the built-in model's prompt", () => {
  it("renders tools, a tool call and its result exactly as Qwen2.5's template does in Python", async () => {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = `${join(import.meta.dirname, '../../fixtures/models')}/`;
    const tokenizer = await AutoTokenizer.from_pretrained('carrel/tiny-chat');
    const rendered = tokenizer.apply_chat_template(toChatTemplateMessages(CONVERSATION), {
      tools: toChatTemplateTools([TEMPERATURE_TOOL]),
      add_generation_prompt: true,
      tokenize: false,
    });
    expect(rendered).toBe(EXPECTED);
  });

  it('sends user text parts joined and leaves images and reasoning out', () => {
    expect(
      toChatTemplateMessages([
        { role: 'user', content: [{ type: 'text', text: 'Look:' }, { type: 'image', image: 'data:image/png;base64,AA==' }, { type: 'text', text: 'what is it?' }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'hidden' }, { type: 'text', text: 'A cat.' }] },
      ]),
    ).toEqual([
      { role: 'user', content: 'Look:\nwhat is it?' },
      { role: 'assistant', content: 'A cat.' },
    ]);
  });
});
