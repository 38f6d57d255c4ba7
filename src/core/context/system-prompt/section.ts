import type { ContextTool } from '../types';

/** What the sections may depend on; flags derive from the tools offered in this cycle. */
export interface SectionContext {
  tools: readonly ContextTool[];
  hasSearchTool: boolean;
  /** A search tool ran in the session, or project files are inline: explain citations. */
  shouldExplainCitations: boolean;
  /** A reminder message ends this request: explain what the tag means. */
  hasReminder: boolean;
  /**
   * A model computing on this device's CPU, where every prompt token costs time: short sections,
   * and the date without the time, so the prompt's start does not change between turns.
   */
  isCompact?: boolean;
}

export interface SystemPromptSection {
  id: string;
  /**
   * Editable sections make up DEFAULT_SYSTEM_PROMPT; a user's override (or a replacing agent
   * prompt) takes their place. Generated sections follow the tools and state of each cycle.
   */
  isEditable: boolean;
  /** The section text (placeholders still in), or null when it does not apply this cycle. */
  render(context: SectionContext): string | null;
}
