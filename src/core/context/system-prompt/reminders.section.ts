import type { SystemPromptSection } from './section';

export const REMINDER_TAG = 'reminder';

export const remindersSection: SystemPromptSection = {
  id: 'reminders',
  isEditable: false,
  render: ({ hasReminder }) =>
    hasReminder
      ? `# Reminders\nA message wrapped in <${REMINDER_TAG}> tags is added by the application, not written by the user. Follow its instructions, and do not mention or reply to it.`
      : null,
};
