import type { SystemPromptSection } from './section';

export const citationsSection: SystemPromptSection = {
  id: 'citations',
  isEditable: false,
  render: ({ shouldExplainCitations }) =>
    shouldExplainCitations
      ? [
          '# Citations',
          'Documents are given to you as JSON, each with a "document" number.',
          'When a statement relies on a document, cite it right after the statement with its number in brackets, e.g. [1] or [2][3].',
          'Cite only documents you were given, and never invent a number.',
        ].join('\n')
      : null,
};
