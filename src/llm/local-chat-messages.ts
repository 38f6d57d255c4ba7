import type { LlmMessage, ToolDefinition } from '../core/model';

/**
 * Messages in the shape Hugging Face chat templates read (`apply_chat_template`): plain string
 * content, assistant tool calls as OpenAI-style `tool_calls` with parsed arguments (templates
 * `tojson` them), tool results as `tool` messages.
 */
export interface ChatTemplateMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: { type: 'function'; function: { name: string; arguments: unknown } }[];
  name?: string;
}

export interface ChatTemplateTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Text only: the built-in models read no images, and their reasoning is not sent back. */
export function toChatTemplateMessages(messages: readonly LlmMessage[]): ChatTemplateMessage[] {
  return messages.flatMap((message): ChatTemplateMessage[] => {
    switch (message.role) {
      case 'system':
        return [{ role: 'system', content: message.content }];
      case 'user':
        return [
          {
            role: 'user',
            content:
              typeof message.content === 'string'
                ? message.content
                : message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n'),
          },
        ];
      case 'assistant': {
        const text = message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
        const calls = message.content.flatMap((part) =>
          part.type === 'tool-call'
            ? [{ type: 'function' as const, function: { name: part.toolName, arguments: part.input } }]
            : [],
        );
        return [{ role: 'assistant', content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
      }
      case 'tool':
        return message.content.map((part) => ({ role: 'tool', name: part.toolName, content: part.output }));
    }
  });
}

export function toChatTemplateTools(tools: readonly ToolDefinition[]): ChatTemplateTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }));
}
