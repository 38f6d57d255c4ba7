import type { SystemPromptSection } from './section';

export const toolsSection: SystemPromptSection = {
  id: 'tools',
  isEditable: false,
  render: ({ tools }) => {
    if (tools.length === 0) return null;
    const lines = tools.map((tool) => `- ${tool.name}: ${tool.usage ?? tool.description}`);
    return [
      '# Tools',
      'You can call these tools in this step:',
      ...lines,
      // Models follow this sentence far more reliably inside the tools section.
      'If a tool result shows that you need more information, or that another tool would help, call further tools before answering.',
    ].join('\n');
  },
};
