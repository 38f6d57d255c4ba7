import type { SystemPromptSection } from './section';

export const datetimeSection: SystemPromptSection = {
  id: 'datetime',
  isEditable: true,
  render: (context) =>
    context.isCompact === true
      ? 'Today is {{CURRENT_DATE}}.'
      : "# Current date\nIt is {{CURRENT_DATETIME}} in the user's time zone.",
};
