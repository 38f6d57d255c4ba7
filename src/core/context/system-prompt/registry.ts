import { expandPlaceholders, type PlaceholderValues } from '../placeholders';
import { citationsSection } from './citations.section';
import { datetimeSection } from './datetime.section';
import { introSection } from './intro.section';
import { remindersSection } from './reminders.section';
import { responseStyleSection } from './response-style.section';
import type { SectionContext, SystemPromptSection } from './section';
import { toolsSection } from './tools.section';

/** The system prompt, in order. Adding a section is one file and one line here. */
export const SYSTEM_PROMPT_SECTIONS: readonly SystemPromptSection[] = [
  introSection,
  datetimeSection,
  responseStyleSection,
  toolsSection,
  citationsSection,
  remindersSection,
];

const SECTION_SEPARATOR = '\n\n';

// Editable sections take no flags; a neutral context renders them.
const EDITABLE_CONTEXT: SectionContext = {
  tools: [],
  hasSearchTool: false,
  shouldExplainCitations: false,
  hasReminder: false,
};

/** The part of the system prompt the user may edit (placeholders unexpanded), for "reset to default". */
export const DEFAULT_SYSTEM_PROMPT: string = SYSTEM_PROMPT_SECTIONS.filter(
  (section) => section.isEditable,
)
  .map((section) => section.render(EDITABLE_CONTEXT))
  .filter((text): text is string => text !== null)
  .join(SECTION_SEPARATOR);

/**
 * Builds S: the editable part (ours, the user's override, or a replacing agent prompt) followed
 * by the generated sections for this cycle, with placeholders expanded everywhere.
 */
export function buildSystemPrompt(
  context: SectionContext,
  editableOverride: string | null,
  values: PlaceholderValues,
): string {
  const texts: string[] = [];
  let hasPlacedOverride = false;
  for (const section of SYSTEM_PROMPT_SECTIONS) {
    if (section.isEditable && editableOverride !== null) {
      if (!hasPlacedOverride && editableOverride.trim().length > 0)
        texts.push(editableOverride.trim());
      hasPlacedOverride = true;
      continue;
    }
    const text = section.render(context);
    if (text !== null) texts.push(text);
  }
  return expandPlaceholders(texts.join(SECTION_SEPARATOR), values);
}
