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

/** `{{CURRENT_DATETIME}}` as written in a prompt, spaces inside the braces allowed. */
const DATETIME_PLACEHOLDER = /\{\{\s*CURRENT_DATETIME\s*\}\}/;
/** The date alone is enough for the compact prompt, which leaves the time out on purpose. */
const DATE_PLACEHOLDER = /\{\{\s*CURRENT_DATE(TIME)?\s*\}\}/;

/**
 * Whether a prompt that takes the editable sections' place still tells the model the date and
 * time; when it does not, our date section follows it, so an edited or replacing prompt never
 * leaves the model guessing what day it is.
 */
function hasDateTime(prompt: string, context: SectionContext): boolean {
  return (context.isCompact === true ? DATE_PLACEHOLDER : DATETIME_PLACEHOLDER).test(prompt);
}

/**
 * Builds S: the editable part (ours, the user's override, or a replacing agent prompt) followed
 * by the generated sections for this cycle, with placeholders expanded everywhere. The date and
 * time are always in it: where the override does not carry them, the date section follows it.
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
      if (!hasPlacedOverride) {
        if (editableOverride.trim().length > 0) texts.push(editableOverride.trim());
        const date = hasDateTime(editableOverride, context) ? null : datetimeSection.render(context);
        if (date !== null) texts.push(date);
      }
      hasPlacedOverride = true;
      continue;
    }
    const text = section.render(context);
    if (text !== null) texts.push(text);
  }
  return expandPlaceholders(texts.join(SECTION_SEPARATOR), values);
}
