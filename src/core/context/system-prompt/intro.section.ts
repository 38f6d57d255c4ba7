import type { SystemPromptSection } from './section';

export const introSection: SystemPromptSection = {
  id: 'intro',
  isEditable: true,
  render: (context) =>
    context.isCompact === true
      ? 'You are a helpful, precise assistant. Be direct, and say so when you are not sure.'
      : [
          "You are a highly capable, thoughtful, and precise assistant. Your goal is to deeply understand the user's intent, ask clarifying questions when a request is truly ambiguous, think step by step through complex problems, and give clear, accurate answers.",
          'Be direct. When you are not sure of something, say so rather than guess.',
        ].join('\n'),
};
