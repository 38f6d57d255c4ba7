export {
  assembleContext,
  toLlmMessages,
  CITATION_REMINDER,
  LAST_CYCLE_REMINDER,
} from './assemble-context';
export {
  allocateBudget,
  decideProjectMode,
  measureProjectFit,
  resolveReservedOutput,
  resolveUploadShare,
  splitInputBudget,
  sumProjectTokens,
  INPUT_BUDGET_RATIO,
  PROJECT_FIT_RATIO,
  MAX_RESERVED_OUTPUT_RATIO,
  type ProjectFitMeasure,
} from './budget';
export {
  renderDocuments,
  renderDocumentsMessage,
  renderNumberedDocuments,
  DOCUMENTS_PREFIX,
  type DocumentInput,
  type NumberedDocument,
} from './documents';
export { measureOutputRoom } from './fit-output';
export { selectCacheBreakpoints, MAX_CACHE_BREAKPOINTS } from './cache-breakpoints';
export { expandPlaceholders, formatCurrentDate, formatCurrentDateTime } from './placeholders';
export { removeDisplayArtifacts, FOLLOW_UPS_MARKER } from './remove-from-text';
export {
  DEFAULT_SYSTEM_PROMPT,
  SYSTEM_PROMPT_SECTIONS,
  buildSystemPrompt,
} from './system-prompt/registry';
export { READ_FILE_TOOL_NAME } from './render/markers';
export {
  describeDroppedSources,
  describeOmittedResult,
  describeTruncation,
} from './reduce-turn';
export { CLEARED_TOOL_RESULT } from './strategies/clear-tool-results';
export {
  EXPIRED_TOOL_RESULT,
  CANCELLED_TOOL_RESULT,
  INCOMPLETE_TOOL_RESULT,
} from './render/render-assistant';
export type * from './types';
export {
  planCompaction,
  buildSummaryRequest,
  describeForSummary,
  coveredIdsThrough,
  findUndoableSummary,
  COMPACTION_THRESHOLD,
  KEEP_VERBATIM_RATIO,
  SUMMARY_INSTRUCTIONS,
  type CompactionPlan,
  type SummaryRequest,
} from './compaction';
export { findActiveSummary, renderSummaryText } from './summary-block';
