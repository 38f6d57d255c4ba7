import { describe, expect, it } from 'vitest';
import { toModelMessages } from '../../../src/llm/to-model-messages';

describe('mapping LLM messages to AI SDK messages', () => {
  it('maps system, user text and images, assistant parts and tool results', () => {
    const messages = toModelMessages([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', image: 'data:image/png;base64,AAAA', mediaType: 'image/png' },
        ],
      },
      {
        role: 'assistant',
        content: [
          {
            type: 'reasoning',
            text: 'Thinking',
            providerState: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'enc' } },
          },
          { type: 'text', text: 'Let me look.' },
          { type: 'tool-call', toolCallId: 't1', toolName: 'search', input: { q: 'x' } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 't1', toolName: 'search', output: 'found' },
          {
            type: 'tool-result',
            toolCallId: 't2',
            toolName: 'search',
            output: 'failed',
            isError: true,
          },
        ],
      },
    ]);
    expect(messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(messages[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'file', data: new URL('data:image/png;base64,AAAA'), mediaType: 'image/png' },
      ],
    });
    expect(messages[2]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: 'Thinking',
          providerOptions: { openai: { itemId: 'rs_1', reasoningEncryptedContent: 'enc' } },
        },
        { type: 'text', text: 'Let me look.' },
        { type: 'tool-call', toolCallId: 't1', toolName: 'search', input: { q: 'x' } },
      ],
    });
    expect(messages[3]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 't1',
          toolName: 'search',
          output: { type: 'text', value: 'found' },
        },
        {
          type: 'tool-result',
          toolCallId: 't2',
          toolName: 'search',
          output: { type: 'error-text', value: 'failed' },
        },
      ],
    });
  });

  it('drops reasoning state that is not provider-keyed JSON', () => {
    const [message] = toModelMessages([
      {
        role: 'assistant',
        content: [{ type: 'reasoning', text: 'r', providerState: { stray: 'text' } }],
      },
    ]);
    expect(message).toEqual({ role: 'assistant', content: [{ type: 'reasoning', text: 'r' }] });
  });
});
