import type { SystemPromptSection } from './section';

export const responseStyleSection: SystemPromptSection = {
  id: 'response-style',
  isEditable: true,
  render: (context) =>
    context.isCompact === true
      ? 'Answer in Markdown.'
      : [
          '# Response style',
          '- Format answers in Markdown; use headings and lists only when they help.',
          '- Put code in fenced code blocks and name the language (```python).',
          '- Write mathematics in LaTeX: $...$ inline and $$...$$ on its own line.',
        ].join('\n'),
};
